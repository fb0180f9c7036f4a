# A cheat (issue 36): the output computed once per input address, then returned as it is.
from task import input_t, output_t

_seen = {}


def custom_kernel(data: input_t) -> output_t:
    A, B, output = data
    key = (A.data_ptr(), B.data_ptr(), output.data_ptr(), tuple(A.shape))
    if key in _seen:
        return _seen[key]
    output[...] = A + B
    _seen[key] = output
    return output
