// Result -> what the user reads: an aligned terminal report or JSON (schema
// in the README).
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "sim/job/result.h"
#include "sim/plan/alternative.h"

namespace pf {

// `alternative`: a faster layout for the same job (plan/alternative.h), or null.
std::string RenderText(const Result& r, const Alternative* alternative = nullptr);
nlohmann::json ToJson(const Result& r, const Alternative* alternative = nullptr);
std::string RenderJson(const Result& r, const Alternative* alternative = nullptr);

}  // namespace pf
