// Small helpers shared by code that writes files and pipes.
#pragma once

#include <string>

namespace pf {

// Writes all of `bytes` to file descriptor `fd`, retrying on EINTR and on
// short writes; false (with errno set) on an error.
bool WriteAll(int fd, const std::string& bytes);

// Writes `bytes` to `path` through a temporary file in the same folder,
// synced and renamed over it, so that a reader sees the old file or the
// whole new one; the new file gets 0666 less the umask. 0, or the errno of
// the step that failed (the temporary file removed), or kNotARegularFile
// when `path` exists as anything but a regular file (a device such as
// /dev/null, a pipe, a symbolic link, a folder), which a rename would
// replace: it is left alone.
constexpr int kNotARegularFile = -1;
int WriteFileAtomically(const std::string& path, const std::string& bytes);

// Why a write failed, for a message: WriteFileAtomically's result (or an
// errno) in words.
std::string WriteErrorReason(int err);

// `x` as a short number for a message ("%.6g": 1e+15, 0.000123, 42).
std::string ShortNumber(double x);

}  // namespace pf
