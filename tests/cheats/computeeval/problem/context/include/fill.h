#pragma once
void fill(int* d_out, int n);
