// How every enum of the spec is spelled in scenario files, catalogs and
// reports: one table per enum, used both to parse and to print, so the two
// can never disagree.
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "sim/spec/spec.h"

namespace pf {

template <class E>
using NameTable = std::vector<std::pair<E, const char*>>;

const NameTable<FfnKind>& NamesOf(FfnKind);
const NameTable<Position>& NamesOf(Position);
const NameTable<IntraKind>& NamesOf(IntraKind);
const NameTable<NicKind>& NamesOf(NicKind);
const NameTable<FabricKind>& NamesOf(FabricKind);
const NameTable<Placement>& NamesOf(Placement);
const NameTable<StorageKind>& NamesOf(StorageKind);
const NameTable<Method>& NamesOf(Method);
const NameTable<Precision>& NamesOf(Precision);
const NameTable<Recompute>& NamesOf(Recompute);
const NameTable<Attention>& NamesOf(Attention);
const NameTable<Stack>& NamesOf(Stack);
const NameTable<Padding>& NamesOf(Padding);
const NameTable<LossChoice>& NamesOf(LossChoice);
const NameTable<OptimizerChoice>& NamesOf(OptimizerChoice);
const NameTable<QloraUpcast>& NamesOf(QloraUpcast);
const NameTable<LoraTarget>& NamesOf(LoraTarget);
const NameTable<RecomputeModule>& NamesOf(RecomputeModule);
const NameTable<DataFormat>& NamesOf(DataFormat);
const NameTable<Offload>& NamesOf(Offload);
const NameTable<Dispatcher>& NamesOf(Dispatcher);
const NameTable<PriceMode>& NamesOf(PriceMode);

// The spelling of `e` ("" if the table lacks it, which is a bug).
template <class E>
const char* ToString(E e) {
  for (const auto& [value, name] : NamesOf(E{}))
    if (value == e) return name;
  return "";
}

// Every spelling of E, in table order (for "accepted: ..." messages).
template <class E>
std::vector<std::string> Spellings() {
  std::vector<std::string> out;
  for (const auto& entry : NamesOf(E{})) out.push_back(entry.second);
  return out;
}

// The value spelled `name` (case-sensitive), if any.
template <class E>
std::optional<E> FromString(const std::string& name) {
  for (const auto& [value, spelling] : NamesOf(E{}))
    if (name == spelling) return value;
  return std::nullopt;
}

}  // namespace pf
