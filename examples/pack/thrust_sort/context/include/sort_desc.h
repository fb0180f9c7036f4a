#ifndef SORT_DESC_H
#define SORT_DESC_H

// Sorts data[0, n) descending and moves the distinct values to the front; returns their count.
// Host pointer; runs on the host; n may be 0.
int sort_unique_desc(int n, int* data);

#endif  // SORT_DESC_H
