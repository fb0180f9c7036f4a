#ifndef SCAN_H
#define SCAN_H

// Exclusive prefix sum in 64-bit: out[0] = 0, out[i] = in[0] + ... + in[i-1]. Returns the total
// of all n inputs. Host pointers; runs on the host; n may be 0.
long long exclusive_scan(int n, const int* in, long long* out);

#endif  // SCAN_H
