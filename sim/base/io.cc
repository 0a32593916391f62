#include "sim/base/io.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>

#include <sys/stat.h>
#include <unistd.h>

namespace pf {

bool WriteAll(int fd, const std::string& bytes) {
  const char* p = bytes.data();
  size_t n = bytes.size();
  while (n > 0) {
    ssize_t k = write(fd, p, n);
    if (k < 0 && errno == EINTR) continue;
    if (k <= 0) return false;
    p += k, n -= static_cast<size_t>(k);
  }
  return true;
}

int WriteFileAtomically(const std::string& path, const std::string& bytes) {
  namespace fs = std::filesystem;
  struct stat st;
  if (lstat(path.c_str(), &st) == 0 && !S_ISREG(st.st_mode)) return kNotARegularFile;
  const fs::path target(path);
  const fs::path dir = target.has_parent_path() ? target.parent_path() : fs::path(".");
  std::string temp = (dir / ("." + target.filename().string() + ".tmp.XXXXXX")).string();
  const int fd = mkstemp(temp.data());
  if (fd < 0) return errno;
  const mode_t mask = umask(0);
  umask(mask);
  const bool written = fchmod(fd, 0666 & ~mask) == 0 && WriteAll(fd, bytes) && fsync(fd) == 0;
  const int write_error = errno;
  if (close(fd) != 0 || !written) {
    const int err = written ? errno : write_error;
    unlink(temp.c_str());
    return err;
  }
  if (std::rename(temp.c_str(), path.c_str()) != 0) {
    const int err = errno;
    unlink(temp.c_str());
    return err;
  }
  return 0;
}

std::string WriteErrorReason(int err) {
  if (err == kNotARegularFile)
    return "exists and is not a regular file (a device, pipe, symbolic link or folder, which would be replaced); "
           "give a new path or a regular file";
  return std::strerror(err);
}

std::string ShortNumber(double x) {
  char b[32];
  std::snprintf(b, sizeof b, "%.6g", x);
  return b;
}

}  // namespace pf
