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

// Units accepted for a dimension, for messages and the README.
std::vector<std::string> AcceptedUnits(Dimension dim);
const char* DimensionName(Dimension dim);

}  // namespace pf
