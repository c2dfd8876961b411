"""Each op the TensorFlow plugin registers, on DML:0 against TensorFlow's own
CPU kernel, in one process: the median of --runs eager calls on inputs
already on each device, at --large bytes per input (default 64 MiB) and
--small (default 4 KiB). Prints a Markdown table (CPU / DML time ratio: above
1 means DML is faster) and the geometric mean at the large size.

    TF_PLUGGABLE_DEVICE_LIBRARY_PATH=build/lib/tensorflow-plugins/libdml_tensorflow.so \\
        DML_BACKEND=cpu python profiling/compare_tensorflow.py

On the CPU backend an eager call returns when the op is done; on a GPU backend
each timed call ends with .numpy() of a one-element slice, so the time includes
the op's completion (and that small copy). Index arguments the plugin takes in
host memory (ReverseSequence's lengths, GatherV2's indices) are
given from the host, as a model feeds them; the DML time includes their upload.
"""
import argparse
import math
import os
import statistics
import time

import numpy as np
import tensorflow as tf

DML, CPU = "/device:DML:0", "/device:CPU:0"


def cases(n):
    """(name, function, input arrays) with about n bytes of float32 input."""
    e = max(n // 4, 64)
    side = max(int(math.sqrt(e)), 8)
    rng = np.random.default_rng(0)
    f = lambda *shape: rng.standard_normal(shape).astype(np.float32)  # noqa: E731
    x2 = f(side, e // side)
    cube = max(int(round(e ** (1 / 3))), 4)
    x3 = f(cube, cube, e // (cube * cube))
    rows = min(x2.shape[0], 1024)
    return [
        ("Transpose 2-D", lambda t: tf.transpose(t), [x2]),
        ("Transpose 3-D (2,0,1)", lambda t: tf.transpose(t, [2, 0, 1]), [x3]),
        ("ReverseV2 axis 0", lambda t: tf.reverse(t, [0]), [x2]),
        ("ReverseV2 axis 1", lambda t: tf.reverse(t, [1]), [x2]),
        ("Slice (half)", lambda t: tf.slice(t, [1, 1], [x2.shape[0] // 2, x2.shape[1] // 2]), [x2]),
        ("StridedSlice [::-1, ::2]", lambda t: t[::-1, ::2], [x2]),
        ("ReverseSequence", lambda t, n: tf.reverse_sequence(t, n, seq_axis=1, batch_axis=0),
         [x2, rng.integers(0, x2.shape[1] + 1, size=x2.shape[0]).astype(np.int64)]),
        ("ConcatV2 of 2 halves", lambda a, b: tf.concat([a, b], 1), [x2[:, : x2.shape[1] // 2].copy(), x2[:, x2.shape[1] // 2:].copy()]),
        ("Pad 1 each side", lambda t: tf.pad(t, [[1, 1], [1, 1]]), [x2]),
        ("MirrorPad REFLECT", lambda t: tf.pad(t, [[2, 2], [2, 2]], mode="REFLECT"), [x2]),
        ("Tile (2,1) of half", lambda t: tf.tile(t, [2, 1]), [x2[: x2.shape[0] // 2].copy()]),
        ("GatherV2 rows", lambda t, i: tf.gather(t, i), [x2, rng.integers(0, x2.shape[0], size=x2.shape[0]).astype(np.int64)]),
        ("BroadcastTo rows", lambda t: tf.broadcast_to(t, x2.shape), [x2[:1].copy()]),
        ("SelectV2", lambda c, a, b: tf.where(c, a, b), [rng.integers(0, 2, size=x2.shape).astype(bool), x2, x2 * 2]),
        ("Split in 4", lambda t: tf.split(t, 4, axis=1)[0], [x2[:, : x2.shape[1] // 4 * 4].copy()]),
        ("DepthToSpace block 2", lambda t: tf.nn.depth_to_space(t, 2), [f(1, rows // 4 or 1, max(e // (rows // 4 or 1) // 16, 1), 16)]),
        ("Cast float32 -> float16", lambda t: tf.cast(t, tf.float16), [x2]),
        ("OneHot depth 16", lambda i: tf.one_hot(i, 16), [rng.integers(0, 16, size=max(e // 16, 1)).astype(np.int64)]),
    ]


HOST_ARGS = {"ReverseSequence": {1}, "GatherV2 rows": {0 + 1}}


def timed(device, fn, args, runs, sync, host_args=frozenset()):
    with tf.device(CPU):
        on_host = [tf.constant(a) for a in args]
    with tf.device(device):
        tensors = [on_host[i] if i in host_args else tf.identity(on_host[i]) for i in range(len(args))]
        out = fn(*tensors)  # compiles, allocates
        times = []
        for _ in range(runs):
            start = time.perf_counter()
            out = fn(*tensors)
            if sync:
                tf.reshape(out, [-1])[:1].numpy()
            times.append(time.perf_counter() - start)
    assert out.device.endswith(device.split("/device:")[1]), (device, out.device)
    return statistics.median(times)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--large", type=int, default=64 << 20)
    parser.add_argument("--small", type=int, default=4 << 10)
    parser.add_argument("--runs", type=int, default=15)
    args = parser.parse_args()
    tf.config.set_soft_device_placement(False)
    sync = os.environ.get("DML_BACKEND", "cpu") not in ("cpu", "")
    small = {name: (fn, a) for name, fn, a in cases(args.small)}
    print("| op | %d MiB: TF CPU ms | DML ms | CPU/DML | %d KiB: TF CPU us | DML us | CPU/DML |"
          % (args.large >> 20, args.small >> 10))
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: |")
    ratios = []
    for name, fn, inputs in cases(args.large):
        cpu = timed(CPU, fn, inputs, args.runs, False)
        host = HOST_ARGS.get(name, frozenset())
        dml = timed(DML, fn, inputs, args.runs, sync, host)
        sfn, sinputs = small[name]
        cpu_s = timed(CPU, sfn, sinputs, args.runs * 10, False)
        dml_s = timed(DML, sfn, sinputs, args.runs * 10, sync, host)
        ratios.append(cpu / dml)
        print("| %s | %.2f | %.2f | %.2f | %.0f | %.0f | %.2f |"
              % (name, cpu * 1e3, dml * 1e3, cpu / dml, cpu_s * 1e6, dml_s * 1e6, cpu_s / dml_s))
    print("\ngeometric mean CPU/DML at %d MiB: %.2f (min %.2f)"
          % (args.large >> 20, math.exp(sum(map(math.log, ratios)) / len(ratios)), min(ratios)))


if __name__ == "__main__":
    main()
