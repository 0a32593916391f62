// Small helpers shared by code that writes files and pipes.
#pragma once

#include <string>

namespace pf {

// Writes all of `bytes` to file descriptor `fd`, retrying on EINTR and on
// short writes; false (with errno set) on an error.
bool WriteAll(int fd, const std::string& bytes);

// `x` as a short number for a message ("%.6g": 1e+15, 0.000123, 42).
std::string ShortNumber(double x);

}  // namespace pf
