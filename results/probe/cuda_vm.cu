// Reports how much address space a small CUDA program needs: VmPeak after init, a 1 GiB
// cudaMalloc, a kernel and a copy. Exit 0 only when all of it worked.
#include <cstdio>
#include <cstring>
#include <cuda_runtime.h>
__global__ void fill(int* p, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) p[i] = i;
}
static long status_kb(const char* key) {
  FILE* f = fopen("/proc/self/status", "r");
  char line[256];
  long v = -1;
  while (f && fgets(line, sizeof line, f))
    if (!strncmp(line, key, strlen(key))) sscanf(line + strlen(key), "%ld", &v);
  if (f) fclose(f);
  return v;
}
int main() {
  cudaError_t e = cudaFree(0);
  if (e) { printf("init: %s\n", cudaGetErrorString(e)); return 1; }
  int* d;
  const int n = 1 << 28;  // 1 GiB
  if ((e = cudaMalloc(&d, n * sizeof(int)))) { printf("malloc: %s\n", cudaGetErrorString(e)); return 1; }
  fill<<<(n + 255) / 256, 256>>>(d, n);
  static int h[1024];
  if ((e = cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost))) { printf("copy: %s\n", cudaGetErrorString(e)); return 1; }
  printf("ok VmPeak_kB=%ld VmSize_kB=%ld VmData_kB=%ld VmRSS_kB=%ld h[1000]=%d\n", status_kb("VmPeak:"),
         status_kb("VmSize:"), status_kb("VmData:"), status_kb("VmRSS:"), h[1000]);
  return h[1000] == 1000 ? 0 : 1;
}
