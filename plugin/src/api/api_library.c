/* SPDX-License-Identifier: MIT
 * Library-level entry points: versions, status names, the thesis's critical damping formula and
 * the plugin table that tf_get_api hands to hosts that dlopen the library. */
#include <math.h>

#include "api/api_common.h"
#include "api/api_table.h"

uint32_t tf_version(void) { return TF_VERSION; }
uint32_t tf_abi_version(void) { return TF_VERSION_MAJOR; }

#define TF_STR2(x) #x
#define TF_STR(x) TF_STR2(x)
const char *tf_version_string(void) {
  return TF_STR(TF_VERSION_MAJOR) "." TF_STR(TF_VERSION_MINOR) "." TF_STR(TF_VERSION_PATCH);
}

const char *tf_status_name(tf_status s) {
  switch (s) {
#define XX(name, code, msg) \
  case TF_##name:           \
    return "TF_" #name;
    TF_STATUS_MAP(XX)
#undef XX
    default:
      return "TF_UNKNOWN";
  }
}

const char *tf_status_message(tf_status s) {
  switch (s) {
#define XX(name, code, msg) \
  case TF_##name:           \
    return msg;
    TF_STATUS_MAP(XX)
#undef XX
    default:
      return "unknown status";
  }
}

/* Young 2007 sec. 4.2.1. The thesis's strain (4.12) omits the 1/2 of the small strain, so with its
 * stress (4.11) the plane-wave equation (4.19) carries a factor 2 on the elastic and damping
 * terms: rho U'' + 2 (mu k^2 I + (mu + lambda) k k^T) U + 2 (psi k^2 I + (psi + phi) k k^T) U' = 0.
 * A zero discriminant for the shear and the pressure wave gives
 *   psi = sqrt(2 rho mu) / k,   phi = sqrt(2 rho (2 mu + lambda)) / k - 2 psi,   k = 2 pi /
 * wavelength, which are eqs. 4.25 and 4.28 with that factor and reproduce Table 4.2 to all printed
 * digits. */
tf_status tf_critical_damping(double lambda, double mu, double rho, double wavelength,
                              double *out_phi, double *out_psi) {
  if (!out_phi || !out_psi) return TF_E_INVALID_ARG;
  if (!(mu > 0.0) || !(lambda >= 0.0) || !(rho > 0.0) || !(wavelength > 0.0) ||
      !isfinite(mu + lambda + rho + wavelength))
    return TF_E_INVALID_ARG;
  double k = 2.0 * TF_PI / wavelength;
  double psi = sqrt(2.0 * rho * mu) / k;
  double phi = sqrt(2.0 * rho * (2.0 * mu + lambda)) / k - 2.0 * psi;
  *out_psi = psi;
  /* sec. 4.2.2: both waves can be critically damped only when lambda >= 2 mu (phi >= 0) */
  if (phi < 0.0) {
    *out_phi = 0.0;
    return TF_E_UNSUPPORTED;
  }
  *out_phi = phi;
  return TF_OK;
}

tf_status tf_measure_settle(const double *t, const double *d, uint32_t count, double lambda,
                            double dt, tf_settle_report *out) {
  if (!t || !d || !out || count < 2) return TF_E_INVALID_ARG;
  for (uint32_t k = 0; k < count; ++k)
    if (!isfinite(t[k]) || !isfinite(d[k]) || d[k] < 0.0 || (k && !(t[k] > t[k - 1])))
      return TF_E_INVALID_ARG;
  if (!(d[0] > 0.0) || lambda < 0.0 || !isfinite(lambda) || (lambda > 0.0 && !(dt > 0.0)))
    return TF_E_INVALID_ARG;
  /* settled: after the last sample at or above 1 % */
  int32_t last = -1;
  for (uint32_t k = 0; k < count; ++k)
    if (d[k] >= 0.01 * d[0]) last = (int32_t)k;
  out->settle_time = (uint32_t)(last + 1) < count ? t[last + 1] - t[0] : -1.0;
  /* least squares of ln d against t on the tail, 10 % down to 1 % */
  double st = 0, sy = 0, stt = 0, sty = 0;
  uint32_t m = 0;
  for (uint32_t k = 0; k < count; ++k) {
    if (d[k] > 0.1 * d[0] || d[k] < 0.01 * d[0] || d[k] <= 0.0) continue;
    double y = log(d[k]);
    st += t[k];
    sy += y;
    stt += t[k] * t[k];
    sty += t[k] * y;
    m++;
  }
  out->rate = 0.0;
  out->tau = 0.0;
  if (m >= 3) {
    double den = m * stt - st * st;
    if (den > 0.0) out->rate = -(m * sty - st * sy) / den;
  }
  if (lambda > 0.0 && out->rate > 0.0) out->tau = (exp(out->rate * dt) - 1.0) / (dt * lambda);
  return TF_OK;
}

#define TF_API_ENTRY(field, fn) .field = fn,
static const tf_api g_api = {
    .struct_size = sizeof(tf_api), .version = TF_VERSION, TF_API_TABLE(TF_API_ENTRY)};
#undef TF_API_ENTRY

const tf_api *tf_get_api(uint32_t abi_major) {
  return abi_major == TF_VERSION_MAJOR ? &g_api : NULL;
}
