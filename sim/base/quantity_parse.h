// Parsing of physical quantities written with units ("400Gbps", "80GiB",
// "2us", "312TFLOP/s", "16USD") and of counts with SI suffixes ("500M").
// Conventions (README): GB = 1e9 B, GiB = 2^30 B, Gbps = 1e9 bit/s.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace pf {

enum class Dimension { kBytes, kSeconds, kBytesPerSecond, kFlopsPerSecond, kUsd, kCount };

// The SI value of `text` in `dim`, or an error message naming the bad value
// and the accepted units. A bare number is accepted only for kCount and for 0.
struct ParsedQuantity {
  std::optional<double> value;
  std::string error;  // set when !value
};
ParsedQuantity ParseQuantity(const std::string& text, Dimension dim);

// The values with physical sense for a dimension, beyond which an input is
// a typo or an attack rather than hardware or a job: every quantity read
// from a file is checked against them (0 is allowed where a key allows it).
struct QuantityRange {
  double min = 0, max = 0;  // SI units, inclusive
};
QuantityRange PhysicalRange(Dimension dim);
// `value` in a readable unit of `dim` ("100TB/s", "1s", "1e+16").
std::string FormatQuantity(double value, Dimension dim);

// Units accepted for a dimension, for messages and the README.
std::vector<std::string> AcceptedUnits(Dimension dim);
const char* DimensionName(Dimension dim);

}  // namespace pf
