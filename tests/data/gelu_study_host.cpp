// Cross-check of sfpu_sim.study's host forms (tests/test_study_gelu_compiled.py): the eleven
// methods of ../shared/spec/approximation-research.md §A written as plain C++ expressions, in
// the study's order of operations, compiled by g++ -O3 -march=native (with and without
// -ffp-contract=off) and run over the study's 65,280 inputs; the test compares every binary32
// result bit for bit. Written for this test from §A (not the study's source). R5 calls the C
// library's erff, as the host form does.
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <algorithm>

static float clamp(float v, float lo, float hi) { return std::max(lo, std::min(hi, v)); }

static const float TV[11] = {-8.14202e-04f, -1.26685e-04f, -1.52895e-05f, -1.43326e-06f,
    -1.04443e-07f, -5.91953e-09f, -2.61040e-10f, -8.95867e-12f, -2.39392e-13f, -4.88498e-15f, 0.0f};

static float tail(float x) {
    // chain x >= -4, -4.5, ..., -8.5; written out so that each y1 - y0 is a constant
#define SEG(k, lo, x0) if (x >= lo) { float t = (x - (x0)) / (-0.5f); return TV[k] + t * (TV[k+1] - TV[k]); }
    SEG(0, -4.0f, -3.5f) SEG(1, -4.5f, -4.0f) SEG(2, -5.0f, -4.5f) SEG(3, -5.5f, -5.0f)
    SEG(4, -6.0f, -5.5f) SEG(5, -6.5f, -6.0f) SEG(6, -7.0f, -6.5f) SEG(7, -7.5f, -7.0f)
    SEG(8, -8.0f, -7.5f) SEG(9, -8.5f, -8.0f)
    return 0.0f;
}

#define SAT if (x >= 3.0f) return x; if (x <= -9.0f) return 0.0f; if (x < -3.5f) return tail(x);

float m_b1(float x) { SAT float z = 1.702f * x; return x * (0.5f + z / (2.0f * (1.0f + std::abs(z)))); }
float m_b1v2(float x) { SAT float z = 1.702f * x; float z2 = z * z; float r = 1.0f / std::sqrt(1.0f + z2);
    return x * (0.5f + 0.5f * z * r); }
float m_r1(float x) { SAT float x2 = x*x, x4 = x2*x2, x6 = x4*x2, x8 = x4*x4;
    float p = 0.398942280f + -0.066490380f * x2 + 0.005223040f * x4 + -0.000203370f * x6 + 0.000003130f * x8;
    return x * clamp(0.5f + x * p, 0.0f, 1.0f); }
float m_r2(float x) { SAT float x2 = x*x, x4 = x2*x2, x6 = x4*x2;
    float n = 0.398942280f + 0.069693856f * x2 + 0.003307210f * x4 + 0.000044406f * x6;
    float d = 1.0f + 0.374206990f * x2 + 0.048066570f * x4 + 0.002013660f * x6;
    return x * clamp(0.5f + x * (n / d), 0.0f, 1.0f); }
float m_a17(float x) { SAT float x2 = x*x, x4 = x2*x2, x6 = x4*x2;
    float q = 0.5f + 0.398942f * x2 + -0.044715f * x4 + 0.003657f * x6; return x * clamp(q, 0.0f, 1.0f); }
float m_a19(float x) { SAT float x2 = x*x, x4 = x2*x2, x6 = x4*x2, x8 = x4*x4;
    float q = 0.5f + 0.398942280f * x2 + -0.066490380f * x4 + 0.005223040f * x6 + -0.000203370f * x8;
    return x * clamp(q, 0.0f, 1.0f); }
float m_r3(float x) { if (x >= 3.0f) return x; if (x <= -9.0f) return 0.0f;
    if (x >= 0.0f) { if (x < 0.5f) return 0.691428f * x; if (x < 1.0f) return 0.991262f * x - 0.149917f;
        if (x < 2.0f) return 1.113252f * x - 0.271907f; return 1.022638f * x - 0.090369f; }
    if (x > -0.5f) return 0.308572f * x; if (x > -1.0f) return 0.008738f * x - 0.149917f;
    if (x > -2.0f) return 0.113252f * x - 0.045403f; if (x > -3.5f) return 0.022638f * x + 0.000127f;
    return tail(x); }
float m_r4(float x) { SAT float x2 = x*x, x3 = x*x2; float z = 0.7978845608f * (x + 0.044715f * x3);
    float z2 = z*z, z4 = z2*z2, z6 = z4*z2;
    float n = z * (1.0f + 0.128205f * z2 + 0.002798f * z4 + 0.0000074f * z6);
    float d = 1.0f + 0.461538f * z2 + 0.023310f * z4 + 0.000207f * z6;
    float t = clamp(n / d, -1.0f, 1.0f); return 0.5f * x * (1.0f + t); }
float m_b3(float x) { SAT float z = x * 0.7071067811865475f; float az = std::abs(z); float z2 = z*z; float e;
    if (az < 1.0f) { float z4 = z2*z2, z6 = z4*z2;
        float s = 1.0f - 0.333333333f * z2 + 0.1f * z4 - 0.023809524f * z6; e = 1.1283791670955126f * z * s; }
    else { float t = az, t2 = t*t, t3 = t2*t, t4 = t2*t2;
        float p = 0.278393f * t + 0.230389f * t2 + 0.000972f * t3 + 0.078108f * t4; float d = 1.0f + p;
        float m = 1.0f - 1.0f / (d * d * d * d); e = (z >= 0) ? m : -m; }
    e = clamp(e, -1.0f, 1.0f); return x * (0.5f * (1.0f + e)); }

static const float K[10] = {-4.0f, -3.0f, -2.0f, -1.0f, -0.5f, 0.0f, 0.5f, 1.0f, 2.0f, 4.0f};
static const float Y[10] = {-0.00012668f, -0.00404970f, -0.04550026f, -0.15865525f, -0.15426877f,
    0.00000000f, 0.34573123f, 0.84134475f, 1.95449974f, 3.99987332f};
static const float M[10] = {-0.00050365f, -0.01194565f, -0.08523180f, -0.08331547f, 0.13250488f,
    0.50000000f, 0.86749512f, 1.08331547f, 1.08523180f, 1.00050365f};
float m_c1(float x) { SAT if (std::abs(x) < 0.125f) { float x2 = x*x; return 0.5f * x + 0.39894228f * x2; }
    int s = 8; if (x < -3.0f) s = 0; else if (x < -2.0f) s = 1; else if (x < -1.0f) s = 2; else if (x < -0.5f) s = 3;
    else if (x < 0.0f) s = 4; else if (x < 0.5f) s = 5; else if (x < 1.0f) s = 6; else if (x < 2.0f) s = 7;
    float x0 = K[s], h = K[s+1] - x0, y0 = Y[s], y1 = Y[s+1], m0 = M[s], m1 = M[s+1];
    float delta = (y1 - y0) / h;
    if (std::abs(delta) > 1e-10f) { float a = m0 / delta, b = m1 / delta; float r2 = a*a + b*b;
        if (r2 > 9.0f) { float tau = 3.0f / std::sqrt(r2); m0 = tau * a * delta; m1 = tau * b * delta; } }
    float c = (3.0f * (y1 - y0) / h - 2.0f * m0 - m1) / h;
    float dd = (2.0f * (y0 - y1) / h + m0 + m1) / (h * h);
    float t = x - x0; return y0 + t * (m0 + t * (c + t * dd)); }

static float PHI[512];
static void r5_init() { const float step = 12.0f / 511.0f;
    for (int i = 0; i < 512; ++i) { float xi = -9.0f + i * step; PHI[i] = 0.5f * (1.0f + std::erf(xi * 0.70710677f)); } }
float m_r5(float x) { if (x >= 3.0f) return x; if (x <= -9.0f) return 0.0f;
    const float inv = 511.0f / 12.0f; float f = (x + 9.0f) * inv; int i = (int)f; float fr = f - i;
    if (i < 0) i = 0; if (i >= 511) i = 510; return x * (PHI[i] + fr * (PHI[i+1] - PHI[i])); }

typedef float (*fn)(float);
int main() {
    r5_init();
    fn methods[11] = {m_b1, m_b1v2, m_r1, m_r2, m_r3, m_r4, m_r5, m_a17, m_a19, m_b3, m_c1};
    for (int m = 0; m < 11; ++m) {
        for (uint32_t b = 0; b < 65536; ++b) {
            if ((b & 0x7F80) == 0x7F80) continue;
            uint32_t w = b << 16; float x; std::memcpy(&x, &w, 4);
            float y = methods[m](x); uint32_t o; std::memcpy(&o, &y, 4);
            std::fwrite(&o, 4, 1, stdout);
        }
    }
}
