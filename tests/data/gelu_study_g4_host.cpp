// Cross-check of sfpu_sim.study.gelu_backward (tests/test_study_gelu_validation.py): the study's
// GELU' approximation G4 and its double reference, written for this test as plain C++ from
// ../shared/spec/approximation-research.md §A (row G4) and the module's docstrings (not the
// study's source), compiled by g++ -O3 -march=native (with and without -ffp-contract=off) and
// run over the study's 65,280 inputs. Writes, per input, G4's binary32 result before the BF16
// cast, then, per input, the double reference Phi(x) + x exp(-x^2/2)/sqrt(2 pi).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>

static float clamp(float v, float lo, float hi) { return std::max(lo, std::min(hi, v)); }

static float pdf(float x) {
    if (std::abs(x) > 4.0f) return 0.0f;
    float x2 = x * x, x4 = x2 * x2, x6 = x4 * x2;
    return 0.3989422804f / (1.0f + 0.5f * x2 + 0.125f * x4 + 0.020833f * x6);
}

static float cdf(float x) {
    if (x > 4.0f) return 1.0f;
    if (x < -4.0f) return 0.0f;
    float z = x * 0.7071067811865475f, az = std::abs(z), z2 = z * z, erf;
    if (az < 1.0f) {
        float z4 = z2 * z2, z6 = z4 * z2;
        erf = 1.1283791670955126f * z * (1.0f - 0.333333333f * z2 + 0.1f * z4 - 0.023809524f * z6);
    } else {
        float t = 1.0f / (1.0f + 0.3275911f * az);
        float t2 = t * t, t3 = t2 * t, t4 = t3 * t, t5 = t4 * t;
        float e = 1.0f / (1.0f + 0.5f * z2 + 0.125f * z2 * z2 + 0.020833f * z2 * z2 * z2);
        float s = 0.254829592f * t + -0.284496736f * t2 + 1.421413741f * t3
                + -1.453152027f * t4 + 1.061405429f * t5;
        float m = 1.0f - s * e;
        erf = z >= 0.0f ? m : -m;
    }
    return 0.5f * (1.0f + clamp(erf, -1.0f, 1.0f));
}

static float g4(float x) {
    if (x >= 3.0f) return 1.0f;
    if (x <= -9.0f) return 0.0f;
    float phi = cdf(x), p = pdf(x);
    return clamp(phi + x * p, -0.5f, 1.5f);
}

static double reference(double x) {
    double phi = 0.5 * (1.0 + std::erf(x * 0.7071067811865476));
    double p = std::exp(-0.5 * x * x) / std::sqrt(2.0 * M_PI);
    return phi + x * p;
}

int main() {
    for (int pass = 0; pass < 2; ++pass) {
        for (uint32_t b = 0; b < 65536; ++b) {
            if ((b & 0x7F80) == 0x7F80) continue;
            uint32_t w = b << 16; float x; std::memcpy(&x, &w, 4);
            if (pass == 0) { float y = g4(x); std::fwrite(&y, 4, 1, stdout); }
            else { double y = reference(x); std::fwrite(&y, 8, 1, stdout); }
        }
    }
}
