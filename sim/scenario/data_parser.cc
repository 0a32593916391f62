#include "sim/scenario/data_parser.h"

#include <string>

namespace pf {

DataSpec ParseData(const YamlView& v) {
  v.ExpectKeys({"tier", "format", "size", "sample_bytes", "bytes_per_token", "workers", "prefetch", "pinned",
                "cpu_per_sample", "read_size", "source"});
  DataSpec d;
  d.enabled = true;
  d.tier = v.Get("tier").Name(64);
  d.format = v.Get("format").Enum<DataFormat>();
  if (v.Has("size")) d.size = v.Get("size").AsBytes();
  const bool images = d.format == DataFormat::kJpeg || d.format == DataFormat::kRaw;
  if (images) {
    d.sample_bytes = v.Get("sample_bytes").AsBytes();
    if (v.Has("bytes_per_token"))
      v.Get("bytes_per_token").Fail(std::string("given, but ") + ToString(d.format) +
                                    " samples are images (sample_bytes sets their size)");
    if (v.Has("read_size"))
      v.Get("read_size").Fail(std::string("given, but ") + ToString(d.format) +
                              " samples are read one file each (read_size is for text and tokens)");
  } else {
    if (v.Has("sample_bytes"))
      v.Get("sample_bytes").Fail(std::string("given, but ") + ToString(d.format) +
                                 " samples are sequences of training.seq_len tokens (bytes_per_token sets their size)");
    // Stored bytes per token: 4 for text (English BPE tokens average about
    // 4 characters), 2 for token ids of a vocabulary under 65,536 (uint16,
    // Megatron's indexed datasets), else 4.
    if (v.Has("bytes_per_token")) {
      d.bytes_per_token = v.Get("bytes_per_token").Number();
      // Compressed token ids take about a byte a token; a tenth of one is
      // below any stored text.
      if (!(d.bytes_per_token >= 0.1 && d.bytes_per_token <= 1e6))
        v.Get("bytes_per_token").Fail("\"" + v.Get("bytes_per_token").Str() + "\" must be in [0.1, 1e6] bytes a token");
    }
    if (v.Has("read_size")) {
      d.read_size = v.Get("read_size").AsBytes();
      if (d.read_size.value() < 4096)
        v.Get("read_size").Fail("\"" + v.Get("read_size").Str() + "\" is below a 4 KiB page, the smallest read");
    }
  }
  if (v.Has("workers")) d.workers = static_cast<int>(v.Get("workers").Int(1, 256));
  if (v.Has("prefetch")) d.prefetch = static_cast<int>(v.Get("prefetch").Int(1, 1024));
  if (v.Has("pinned")) d.pinned = v.Get("pinned").Bool();
  if (v.Has("cpu_per_sample")) {
    d.cpu_per_sample = v.Get("cpu_per_sample").AsSeconds(true);
    if (d.cpu_per_sample->value() > 3600)
      v.Get("cpu_per_sample").Fail("\"" + v.Get("cpu_per_sample").Str() + "\" is over an hour per sample");
  }
  if (v.Has("source")) v.Get("source").Name(4096);  // text, checked, not used
  return d;
}

}  // namespace pf
