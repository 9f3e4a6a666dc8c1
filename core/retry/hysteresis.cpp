#include <vigil/retry/hysteresis.hpp>

#include <algorithm>
#include <cmath>

namespace vigil::retry {

namespace {

double sigmoid(double x) {
  // Written for either sign so that exp never overflows.
  if (x >= 0) return 1.0 / (1.0 + std::exp(-x));
  const double e = std::exp(x);
  return e / (1.0 + e);
}

}  // namespace

Status HysteresisModel::validate() const {
  namespace p = hysteresis_param;
  for (auto [spec, value] :
       {std::pair{p::l0, l0_ms}, std::pair{p::timeout, timeout_ms}, std::pair{p::mu_max, mu_max},
        std::pair{p::alpha, alpha}, std::pair{p::beta, beta}, std::pair{p::gamma, gamma},
        std::pair{p::kappa, kappa}, std::pair{p::eta, eta},
        std::pair{p::max_latency, max_latency_ms}})
    if (auto s = spec.check(value); !s) return s;
  if (!(timeout_ms > l0_ms)) return Error{"--timeout must be above --l0 (the base latency)"};
  if (!(max_latency_ms > timeout_ms)) return Error{"--max-latency must be above --timeout"};
  return ok_status();
}

double HysteresisModel::offered(double latency_ms, double lambda0) const {
  return lambda0 * (1.0 + gamma * sigmoid(kappa * (latency_ms - timeout_ms)));
}

double HysteresisModel::capacity(double latency_ms) const {
  return mu_max / (1.0 + alpha * std::pow(std::max(latency_ms, 0.0) / l0_ms, beta));
}

double HysteresisModel::carried(double latency_ms) const {
  const double wait = std::max(latency_ms - l0_ms, 0.0);
  const double cap = capacity(latency_ms);
  const double service_ms = 1000.0 / cap;
  return cap * wait / (wait + service_ms);
}

double HysteresisModel::drift(double latency_ms, double lambda0) const {
  return eta * (offered(latency_ms, lambda0) - carried(latency_ms));
}

double HysteresisModel::goodput(double latency_ms) const {
  const double wait = latency_ms - l0_ms;
  if (wait <= 0.0) return 0.0;
  const double cap = capacity(latency_ms);
  const double rho = wait / (wait + 1000.0 / cap);
  const double in_time = 1.0 - rho * std::exp(-rho * (timeout_ms - l0_ms) / wait);
  return cap * rho * in_time;
}

std::vector<Equilibrium> equilibria(const HysteresisModel& m, double lambda0) {
  std::vector<Equilibrium> out;
  auto f = [&](double l) { return m.offered(l, lambda0) - m.carried(l); };
  const double lo = m.l0_ms, hi = m.max_latency_ms;
  const int steps = static_cast<int>(std::ceil((hi - lo) / std::max(0.05, (hi - lo) / 200000.0)));
  double prev_l = lo, prev_f = f(lo);
  for (int i = 1; i <= steps; ++i) {
    const double l = lo + (hi - lo) * i / steps;
    const double fl = f(l);
    if ((prev_f > 0) != (fl > 0)) {
      double a = prev_l, b = l;
      const bool falling = prev_f > 0;
      for (int k = 0; k < 60; ++k) {
        const double mid = 0.5 * (a + b);
        if ((f(mid) > 0) == falling)
          a = mid;
        else
          b = mid;
      }
      out.push_back({0.5 * (a + b), falling, false});
    }
    prev_l = l;
    prev_f = fl;
  }
  if (prev_f > 0) out.push_back({hi, true, true});
  return out;
}

Settled settle(const HysteresisModel& m, double lambda0, double start_ms, double max_seconds) {
  const double lo = m.l0_ms, hi = m.max_latency_ms;
  const double rate = m.eta * (m.mu_max * m.mu_max / 1000.0 + lambda0 * m.gamma * m.kappa / 4.0);
  const double dt = std::min(0.001, 2.0 / rate);
  const int per_second = static_cast<int>(std::ceil(1.0 / dt));
  const double h = 1.0 / per_second;
  auto d = [&](double l) { return m.drift(l, lambda0); };
  double l = std::clamp(start_ms, lo, hi);
  Settled s;
  while (s.seconds < max_seconds) {
    if (l >= hi && d(hi) >= 0) {
      s.converged = true;
      break;
    }
    const double begin = l;
    for (int i = 0; i < per_second; ++i) {
      const double k1 = d(l);
      const double k2 = d(l + 0.5 * h * k1);
      const double k3 = d(l + 0.5 * h * k2);
      const double k4 = d(l + h * k3);
      l = std::clamp(l + h / 6.0 * (k1 + 2 * k2 + 2 * k3 + k4), lo, hi);
    }
    s.seconds += 1.0;
    if (std::abs(l - begin) < 1e-3) {
      s.converged = true;
      break;
    }
  }
  s.latency_ms = l;
  return s;
}

}  // namespace vigil::retry
