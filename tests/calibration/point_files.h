// The residual files the calibration fixtures pass between ctest cases:
// one simulation point's log errors, one per line, in
// $PREFLIGHT_CALIBRATION_DIR (shipped_constants.cc, hopper_rate.cc).
#pragma once

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

#include <Eigen/Dense>
#include <gtest/gtest.h>

namespace pf::testing_points {

// The file of point k of a fit, e.g. "point" -> point_0.txt.
inline std::string PointFile(const std::string& prefix, int k) {
  const char* dir = std::getenv("PREFLIGHT_CALIBRATION_DIR");
  return std::string(dir ? dir : ".") + "/" + prefix + "_" + std::to_string(k) + ".txt";
}

// Writes the residuals `r` to `path` (replacing it); fails the test when it cannot.
inline void WritePoint(const std::string& path, const Eigen::VectorXd& r) {
  std::remove(path.c_str());
  std::ofstream out(path);
  out.precision(17);
  for (int i = 0; i < r.size(); ++i) out << r[i] << "\n";
  EXPECT_TRUE(out.good()) << path;
}

// The residuals in `path` (empty when it is missing).
inline Eigen::VectorXd ReadPoint(const std::string& path) {
  std::ifstream in(path);
  std::vector<double> v;
  for (double x; in >> x;) v.push_back(x);
  return Eigen::Map<Eigen::VectorXd>(v.data(), v.size());
}

}  // namespace pf::testing_points
