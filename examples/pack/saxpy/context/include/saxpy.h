#ifndef SAXPY_H
#define SAXPY_H

// y[i] = a * x[i] + y[i] for 0 <= i < n. Host pointers; runs on the host.
void saxpy(int n, float a, const float* x, float* y);

#endif  // SAXPY_H
