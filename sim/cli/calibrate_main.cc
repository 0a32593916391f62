// calibrate: refit the constants of sim/spec/calibration.h over the
// published reference rows (tests/data/) and print the fit, each row's
// error and the leave-one-out errors. `simulate` never runs this; the
// constants it ships are this fit's result to three decimals
// (tests/calibration/ checks it).
#include <cmath>
#include <iostream>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "sim/base/error.h"
#include "sim/calibration/fit.h"
#include "sim/calibration/gemm_fit.h"
#include "sim/calibration/hopper_fit.h"
#include "sim/calibration/nccl_fit.h"
#include "sim/cli/exit_status.h"
#include "sim/cli/parse_args.h"
#include "sim/scenario/catalog.h"

namespace {

void PrintFit(const std::vector<pf::ReferenceRow>& rows, const pf::FitResult& f) {
  const pf::Calibration shipped;
  fmt::print("Fit over {} reference rows: least squares on log(predicted/published), "
             "Gauss-Newton, {} iterations\n", rows.size(), f.iterations);
  fmt::print("  training_kernel_efficiency  {:.4f}  (written as {:.3f}; ships {:.3f})\n",
             f.fitted.training_kernel_efficiency, f.shipped.training_kernel_efficiency,
             shipped.training_kernel_efficiency);
  fmt::print("  nccl_compute_share          {:.4f}  (written as {:.3f}; ships {:.3f})\n",
             f.fitted.nccl_compute_share, f.shipped.nccl_compute_share, shipped.nccl_compute_share);
  fmt::print("  triton_vs_flash_attention2  {:.4f}  (written as {:.3f}; ships {:.3f})\n\n",
             f.fitted.triton_vs_flash_attention2, f.shipped.triton_vs_flash_attention2,
             shipped.triton_vs_flash_attention2);
  fmt::print("| {:<45} | {:<12} | {:>9} | {:>9} | {:>7} | {:>13} | {:>23} |\n", "run", "metric",
             "published", "predicted", "error", "left-out error", "refit without it");
  fmt::print("|{:-<47}|{:-<14}|{:-<11}|{:-<11}|{:-<9}|{:-<15}|{:-<25}|\n", "", "", "", "", "", "", "");
  double sum_abs = 0, max_loo = 0;
  for (size_t i = 0; i < rows.size(); ++i) {
    const double err = std::expm1(f.residuals[i]), loo = std::expm1(f.loo_errors[i]);
    sum_abs += std::abs(err);
    max_loo = std::max(max_loo, std::abs(loo));
    fmt::print("| {:<45} | {:<12} | {:>9.0f} | {:>9.0f} | {:>+6.1f}% | {:>+13.1f}% | {:>5.3f}, {:>5.3f}, {:>5.3f} |\n",
               rows[i].label, rows[i].metric, rows[i].published, f.predicted[i], 100 * err,
               100 * loo, f.loo_constants(i, 0), f.loo_constants(i, 1), f.loo_constants(i, 2));
  }
  fmt::print("mean absolute error {:.1f}%; largest leave-one-out error {:.1f}%\n",
             100 * sum_abs / rows.size(), 100 * max_loo);
}

// The NCCL fit (calibration/nccl_fit.h): constants, then each point.
void PrintNcclFit(const std::string& root) {
  const auto points = pf::LoadNcclCurves(root);
  const pf::NcclFitResult f = pf::FitNccl(points);
  const pf::NcclConstants shipped;
  fmt::print("NCCL model fit over {} nccl-tests all-reduce points (least squares on relative time error)\n",
             points.size());
  auto row = [](const char* name, double fitted, double written, double ships, const char* unit, double scale) {
    fmt::print("  {:<22} {:>9.4f} {}  (written as {:.3f}; ships {:.3f})\n", name, fitted * scale, unit,
               written * scale, ships * scale);
  };
  row("step_latency_ll", f.fitted.step_latency_ll_s, f.shipped.step_latency_ll_s, shipped.step_latency_ll_s, "us", 1e6);
  row("step_latency_ll128", f.fitted.step_latency_ll128_s, f.shipped.step_latency_ll128_s,
      shipped.step_latency_ll128_s, "us", 1e6);
  row("step_latency_simple", f.fitted.step_latency_simple_s, f.shipped.step_latency_simple_s,
      shipped.step_latency_simple_s, "us", 1e6);
  row("ll128_bandwidth", f.fitted.ll128_bandwidth, f.shipped.ll128_bandwidth, shipped.ll128_bandwidth, "  ", 1);
  row("nvls_latency", f.fitted.nvls_latency_s, f.shipped.nvls_latency_s, shipped.nvls_latency_s, "us", 1e6);
  row("nvls_efficiency", f.fitted.nvls_efficiency, f.shipped.nvls_efficiency, shipped.nvls_efficiency, "  ", 1);
  fmt::print("\n| {:<38} | {:>12} | {:>9} | {:>9} | {:>7} |\n", "system", "bytes", "published", "model",
             "error");
  fmt::print("|{:-<40}|{:-<14}|{:-<11}|{:-<11}|{:-<9}|\n", "", "", "", "", "");
  for (size_t i = 0; i < points.size(); ++i)
    fmt::print("| {:<38} | {:>12.0f} | {:>9.2f} | {:>9.2f} | {:>+6.1f}% |\n", points[i].system,
               points[i].size_bytes, points[i].busbw_gbps, pf::ModelBusBandwidth(points[i], f.fitted),
               100 * f.relative_errors[i]);
}

// The GEMM shape fit (calibration/gemm_fit.h): constants, then the error
// by GPU and size class.
void PrintGemmFit(const std::string& root) {
  const auto points = pf::LoadGemmPoints(root);
  const pf::GemmFitResult f = pf::FitGemmShape(points);
  const pf::GemmShapeConstants shipped;
  fmt::print("GEMM shape fit over {} published bf16 GEMM points (Levenberg-Marquardt on log(model/measured))\n",
             points.size());
  fmt::print("  headroom     {:>8.4f}  (written as {:.3f}; ships {:.3f})\n", f.fitted.headroom, f.shipped.headroom,
             shipped.headroom);
  fmt::print("  tiles_half   {:>8.4f}  (written as {:.3f}; ships {:.3f})\n", f.fitted.tiles_half,
             f.shipped.tiles_half, shipped.tiles_half);
  fmt::print("  k_half       {:>8.1f}  (written as {:.0f}; ships {:.0f})\n", f.fitted.k_half, f.shipped.k_half,
             shipped.k_half);
  fmt::print("rms of log error {:.3f}\n\n", f.rms);
  fmt::print("| {:<16} | {:<28} | {:>6} | {:>9} | {:>9} |\n", "gpu", "M*N*K", "points", "rms", "max |err|");
  fmt::print("|{:-<18}|{:-<30}|{:-<8}|{:-<11}|{:-<11}|\n", "", "", "", "", "");
  for (const char* gpu : {"A100-SXM4-40GB", "A100-SXM4-80GB", "H100-SXM5-80GB"})
    for (const auto& [label, lo, hi] : {std::tuple<const char*, double, double>{"below 2^30 (1024^3)", 0, 1 << 30},
                                        {"2^30 to 2^36 (4096^3)", double(1 << 30), 68719476736.0},
                                        {"2^36 and above", 68719476736.0, 1e30}}) {
      double sum = 0, worst = 0;
      int count = 0;
      for (size_t i = 0; i < points.size(); ++i) {
        const double size = points[i].m * points[i].n * points[i].k;
        if (points[i].gpu != gpu || size < lo || size >= hi) continue;
        const double e = std::exp(f.log_errors[i]) - 1;
        sum += e * e, worst = std::max(worst, std::abs(e)), ++count;
      }
      if (count)
        fmt::print("| {:<16} | {:<28} | {:>6} | {:>8.1f}% | {:>8.1f}% |\n", gpu, label, count,
                   100 * std::sqrt(sum / count), 100 * worst);
    }
  // FP8: its own constants over DeepGEMM's table, each point.
  const auto fp8 = pf::LoadGemmPoints(root, pf::Precision::kFp8);
  const pf::GemmFitResult g = pf::FitGemmShape(fp8);
  const pf::GemmShapeConstants ships = pf::Fp8GemmShapeConstants();
  fmt::print("\nFP8 GEMM shape fit over {} published FP8 GEMM points (tests/data/gemm_shapes_fp8.csv)\n", fp8.size());
  fmt::print("  headroom     {:>8.4f}  (written as {:.3f}; ships {:.3f})\n", g.fitted.headroom, g.shipped.headroom,
             ships.headroom);
  fmt::print("  tiles_half   {:>8.4f}  (written as {:.3f}; ships {:.3f})\n", g.fitted.tiles_half, g.shipped.tiles_half,
             ships.tiles_half);
  fmt::print("  k_half       {:>8.1f}  (written as {:.0f}; ships {:.0f})\n", g.fitted.k_half, g.shipped.k_half,
             ships.k_half);
  fmt::print("rms of log error {:.3f}\n\n", g.rms);
  fmt::print("| {:<22} | {:>9} | {:>9} | {:>7} | {:>18} |\n", "M x N x K", "published", "model", "error",
             "with bf16 constants");
  fmt::print("|{:-<24}|{:-<11}|{:-<11}|{:-<9}|{:-<20}|\n", "", "", "", "", "");
  for (size_t i = 0; i < fp8.size(); ++i)
    fmt::print("| {:<22} | {:>9.0f} | {:>9.0f} | {:>+6.1f}% | {:>+17.1f}% |\n",
               fmt::format("{:.0f} x {:.0f} x {:.0f}", fp8[i].m, fp8[i].n, fp8[i].k), fp8[i].tflops,
               pf::ModelGemmTflops(fp8[i], g.fitted), 100 * (std::exp(g.log_errors[i]) - 1),
               100 * (pf::ModelGemmTflops(fp8[i], pf::GemmShapeConstants()) / fp8[i].tflops - 1));
}

// The H100 rate fit (calibration/hopper_fit.h): the rate, then each row.
void PrintHopperFit(const std::string& root, double start, int iterations) {
  const auto rows = pf::HopperRows(root);
  const double ships = pf::GpuCatalog().at(pf::kHopperFitGpu).training_rate.value_or(1);
  int done = 0;
  const pf::HopperFitResult f = pf::FitHopperRate(rows, start, iterations, [&](const std::string& name) {
    std::cerr << "\rcalibrate: simulation " << ++done << " (" << name << ")\033[K" << std::flush;
  });
  std::cerr << "\n";
  fmt::print("{} training_rate fit over its {} published speed rows (tests/data/*_rows.csv): least squares on "
             "log(predicted/published), Gauss-Newton, {} iterations\n",
             pf::kHopperFitGpu, rows.size(), f.iterations);
  fmt::print("  training_rate  {:.4f}  (written as {:.3f}; ships {:.3f})\n\n", f.fitted, f.shipped, ships);
  fmt::print("| {:<40} | {:<24} | {:>9} | {:>9} | {:>7} | {:>13} | {:>16} |\n", "row", "metric", "published",
             "predicted", "error", "left-out error", "refit without it");
  fmt::print("|{:-<42}|{:-<26}|{:-<11}|{:-<11}|{:-<9}|{:-<15}|{:-<18}|\n", "", "", "", "", "", "", "");
  double sum_abs = 0, max_loo = 0, sum_loo = 0;
  int within = 0;
  for (size_t i = 0; i < rows.size(); ++i) {
    const double err = std::expm1(f.residuals[i]), loo = std::expm1(f.loo_errors[i]);
    sum_abs += std::abs(err), sum_loo += std::abs(loo), within += std::abs(err) <= 0.15;
    max_loo = std::max(max_loo, std::abs(loo));
    fmt::print("| {:<40} | {:<24} | {:>9.4g} | {:>9.4g} | {:>+6.1f}% | {:>+13.1f}% | {:>16.3f} |\n", rows[i].scenario,
               rows[i].metric, rows[i].published, f.predicted[i], 100 * err, 100 * loo, f.loo_rates[i]);
  }
  fmt::print("mean absolute error {:.1f}% ({} of {} within 15%); mean absolute leave-one-out error {:.1f}%, "
             "largest {:.1f}%\n",
             100 * sum_abs / rows.size(), within, rows.size(), 100 * sum_loo / rows.size(), 100 * max_loo);
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"Refit Preflight's calibrated constants over the published reference rows"};
  double kernel = pf::Calibration{}.training_kernel_efficiency;
  double share = pf::Calibration{}.nccl_compute_share;
  double triton = pf::Calibration{}.triton_vs_flash_attention2;
  int iterations = 6;
  std::string root = PREFLIGHT_SOURCE_DIR;
  app.add_option("--start-kernel-efficiency", kernel, "starting training kernel efficiency")
      ->check(CLI::Range(0.05, 1.0));
  app.add_option("--start-nccl-share", share, "starting NCCL compute share")->check(CLI::Range(0.0, 0.9));
  app.add_option("--start-triton", triton, "starting Triton attention rate over FlashAttention-2's")
      ->check(CLI::Range(0.05, 2.0));
  app.add_option("--max-iterations", iterations, "Gauss-Newton iterations at most")->check(CLI::Range(1, 50));
  app.add_option("--root", root, "source tree holding tests/data/ and scenarios/");
  bool nccl = false, gemm = false, hopper = false;
  app.add_flag("--nccl", nccl, "refit the NCCL collective constants (collectives/nccl.h) instead");
  app.add_flag("--gemm", gemm, "refit the GEMM shape constants (model/gemm_shape.h) instead");
  app.add_flag("--hopper", hopper,
               "refit the H100's training_rate (topologies/gpus.yaml) over its published runs instead; "
               "--start-kernel-efficiency is then the starting rate");
  if (const int rc = pf::ParseCommandLine(app, argc, argv); rc != pf::kParsed) return rc;
  return pf::RunWithExitStatus("calibrate", [&] {
    if (nccl) {
      PrintNcclFit(root);
      return 0;
    }
    if (gemm) {
      PrintGemmFit(root);
      return 0;
    }
    if (hopper) {
      PrintHopperFit(root, app.count("--start-kernel-efficiency") ? kernel : 0.9, iterations);
      return 0;
    }
    const auto rows = pf::LoadReferenceRows(root);
    pf::Calibration start;
    start.training_kernel_efficiency = kernel;
    start.nccl_compute_share = share;
    start.triton_vs_flash_attention2 = triton;
    int done = 0;
    const pf::FitResult f = pf::Fit(rows, start, iterations, [&](const std::string& label) {
      std::cerr << "\rcalibrate: simulation " << ++done << " (" << label << ")\033[K" << std::flush;
    });
    std::cerr << "\n";
    PrintFit(rows, f);
    return 0;
  });
}
