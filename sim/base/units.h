// Typed physical quantities. A Quantity<Tag> is an SI double that only mixes
// with its own kind, so passing a latency where a bandwidth is expected, or
// adding bytes to seconds, does not compile. Division of compatible kinds is
// spelled out below (Bytes / BytesPerSecond -> Seconds, ...).
#pragma once

namespace pf {

template <class Tag>
struct Quantity {
  double v = 0;  // SI value: bytes, seconds, bytes/s, FLOP, FLOP/s
  constexpr Quantity() = default;
  constexpr explicit Quantity(double x) : v(x) {}
  constexpr double value() const { return v; }
  constexpr Quantity operator+(Quantity o) const { return Quantity(v + o.v); }
  constexpr Quantity operator-(Quantity o) const { return Quantity(v - o.v); }
  constexpr Quantity operator*(double k) const { return Quantity(v * k); }
  constexpr Quantity operator/(double k) const { return Quantity(v / k); }
  constexpr double operator/(Quantity o) const { return v / o.v; }
  Quantity& operator+=(Quantity o) { v += o.v; return *this; }
  Quantity& operator-=(Quantity o) { v -= o.v; return *this; }
  constexpr bool operator<(Quantity o) const { return v < o.v; }
  constexpr bool operator>(Quantity o) const { return v > o.v; }
  constexpr bool operator<=(Quantity o) const { return v <= o.v; }
  constexpr bool operator>=(Quantity o) const { return v >= o.v; }
  constexpr bool operator==(Quantity o) const { return v == o.v; }
};
template <class Tag>
constexpr Quantity<Tag> operator*(double k, Quantity<Tag> q) { return q * k; }

struct BytesTag {};
struct SecondsTag {};
struct BytesPerSecondTag {};
struct FlopsTag {};
struct FlopsPerSecondTag {};
struct UsdTag {};

using Bytes = Quantity<BytesTag>;                  // bytes (B)
using Seconds = Quantity<SecondsTag>;              // seconds (s)
using BytesPerSecond = Quantity<BytesPerSecondTag>;  // bytes per second (B/s)
using Flops = Quantity<FlopsTag>;                  // floating-point operations
using FlopsPerSecond = Quantity<FlopsPerSecondTag>;  // FLOP/s
using Usd = Quantity<UsdTag>;                      // US dollars

constexpr Seconds operator/(Bytes b, BytesPerSecond r) { return Seconds(b.v / r.v); }
constexpr Seconds operator/(Flops f, FlopsPerSecond r) { return Seconds(f.v / r.v); }
constexpr Bytes operator*(BytesPerSecond r, Seconds t) { return Bytes(r.v * t.v); }
constexpr Flops operator*(FlopsPerSecond r, Seconds t) { return Flops(r.v * t.v); }

// Decimal and binary prefixes, as the README states: GB = 1e9 B, GiB = 2^30 B.
constexpr double kKilo = 1e3, kMega = 1e6, kGiga = 1e9, kTera = 1e12;
constexpr double kKiB = 1024.0, kMiB = kKiB * 1024, kGiB = kMiB * 1024, kTiB = kGiB * 1024;

}  // namespace pf
