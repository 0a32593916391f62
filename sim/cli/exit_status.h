// How Preflight's commands end: the body's own status, or an exception
// mapped to one line on stderr ("PROGRAM: message") and an exit status:
// 2 bad input (InputError, std::invalid_argument), 3 internal error (any
// other exception: a bug in Preflight, reported as such).
#pragma once

#include <functional>
#include <iostream>
#include <stdexcept>
#include <string>

#include "sim/base/error.h"

namespace pf {

inline int RunWithExitStatus(const std::string& program, const std::function<int()>& body) {
  try {
    return body();
  } catch (const InputError& e) {
    std::cerr << program << ": " << e.what() << "\n";
    return 2;
  } catch (const std::invalid_argument& e) {
    std::cerr << program << ": " << e.what() << "\n";
    return 2;
  } catch (const std::exception& e) {
    std::cerr << program << ": internal error: " << e.what() << "\n";
    return 3;
  }
}

}  // namespace pf
