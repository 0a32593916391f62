// Result -> what the user reads: an aligned terminal report or JSON (schema
// in the README).
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "sim/job/result.h"

namespace pf {

std::string RenderText(const Result& r);
nlohmann::json ToJson(const Result& r);
std::string RenderJson(const Result& r);

}  // namespace pf
