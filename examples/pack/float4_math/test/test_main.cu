#include <cmath>
#include <cstdio>

#include "vec4.h"

static bool near(float got, float want) {
  return std::fabs(got - want) <= 1e-5f * (1.0f + std::fabs(want));
}

static bool near4(float4 g, float4 w) {
  return near(g.x, w.x) && near(g.y, w.y) && near(g.z, w.z) && near(g.w, w.w);
}

static int fail(const char* what, float4 g, float4 w) {
  std::fprintf(stderr, "FAIL: %s = (%g, %g, %g, %g), expected (%g, %g, %g, %g)\n", what, g.x, g.y,
               g.z, g.w, w.x, w.y, w.z, w.w);
  return 1;
}

int main() {
  const float4 a = make_float4(1.0f, -2.0f, 3.0f, 0.5f);
  const float4 b = make_float4(-4.0f, 6.0f, 0.0f, 2.5f);

  const float d = dot4(a, b);
  if (!near(d, -4.0f - 12.0f + 0.0f + 1.25f)) {
    std::fprintf(stderr, "FAIL: dot4 = %g, expected %g\n", d, -14.75f);
    return 1;
  }

  const float4 l = lerp4(a, b, 0.25f);
  const float4 lw = make_float4(-0.25f, 0.0f, 2.25f, 1.0f);
  if (!near4(l, lw)) return fail("lerp4(a, b, 0.25)", l, lw);
  const float4 l1 = lerp4(a, b, 1.0f);
  if (!near4(l1, b)) return fail("lerp4(a, b, 1)", l1, b);

  const float4 n = normalize4(make_float4(3.0f, 0.0f, 4.0f, 0.0f));
  const float4 nw = make_float4(0.6f, 0.0f, 0.8f, 0.0f);
  if (!near4(n, nw)) return fail("normalize4(3, 0, 4, 0)", n, nw);
  const float4 z = normalize4(make_float4(0.0f, 0.0f, 0.0f, 0.0f));
  const float4 zw = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
  if (!near4(z, zw) || std::isnan(z.x)) return fail("normalize4(0)", z, zw);

  std::printf("PASS: float4 helpers\n");
  return 0;
}
