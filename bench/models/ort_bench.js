// One ONNX Runtime measurement for bench/models/compare.py (and
// bench/threads/contention.py), run with
// `node ort_bench.js MODEL.onnx INPUTS.json THREADS WARMUP ITERS [RATE_HZ]`
// and NODE_PATH pointing at a node_modules that holds onnxruntime-node.
// With RATE_HZ each timed run starts at its tick, as a control loop calls
// it; cpu_ms_per_run is the process's CPU time over the timed runs per run
// (with a rate, what its threads burn between runs included).
//
// INPUTS.json lists {name, dtype, shape, file} per input; each file holds
// the array's raw little-endian bytes (written by compare.py from the same
// .npz edgec and PyTorch read, so that node needs no npz reader).
// Prints one JSON object: load_ms (InferenceSession.create: file read, graph
// optimization, kernel setup), times_ms (each timed session.run), and the
// process's peak RSS.
'use strict';
const fs = require('fs');
const path = require('path');
const ort = require('onnxruntime-node');

const [modelPath, inputsPath, threadsArg, warmupArg, itersArg, rateArg] = process.argv.slice(2);
const threads = Number(threadsArg), warmup = Number(warmupArg), iters = Number(itersArg);
const rateHz = rateArg === undefined ? 0 : Number(rateArg);
const arrayTypes = {float32: Float32Array, int64: BigInt64Array, int32: Int32Array, bool: Uint8Array};

function nowMs() {
  return Number(process.hrtime.bigint()) / 1e6;
}

(async () => {
  const specs = JSON.parse(fs.readFileSync(inputsPath, 'utf8'));
  const feeds = {};
  for (const s of specs) {
    const bytes = fs.readFileSync(path.join(path.dirname(inputsPath), s.file));
    // A fresh, aligned buffer: typed arrays need their element alignment,
    // which a Buffer slice from the file reader does not promise.
    const copy = new Uint8Array(bytes.length);
    copy.set(bytes);
    const Ctor = arrayTypes[s.dtype];
    if (!Ctor) throw new Error(`input ${s.name}: unsupported dtype ${s.dtype}`);
    feeds[s.name] = new ort.Tensor(s.dtype, new Ctor(copy.buffer), s.shape);
  }
  const start = nowMs();
  // What a user tuning for latency would pick: all graph optimizations,
  // the intra-op pool sized to the threads under test, no inter-op pool.
  const session = await ort.InferenceSession.create(modelPath, {
    intraOpNumThreads: threads,
    interOpNumThreads: 1,
    executionMode: 'sequential',
    graphOptimizationLevel: 'all',
  });
  const loadMs = nowMs() - start;
  for (let i = 0; i < warmup; ++i) await session.run(feeds);
  const times = [];
  const periodMs = rateHz > 0 ? 1000 / rateHz : 0;
  let tick = nowMs(), missed = 0;
  const cpuStart = process.cpuUsage();
  for (let i = 0; i < iters; ++i) {
    if (periodMs > 0) {
      tick += periodMs;
      const wait = tick - nowMs();
      if (wait < 0) ++missed;
      // setTimeout's resolution is a millisecond: a run may start up to one
      // late, never early spinning (that would count as the runtime's CPU).
      else await new Promise((resolve) => setTimeout(resolve, wait));
    }
    const t0 = nowMs();
    await session.run(feeds);
    times.push(nowMs() - t0);
  }
  const cpu = process.cpuUsage(cpuStart);
  process.stdout.write(JSON.stringify({
    load_ms: loadMs,
    times_ms: times,
    cpu_ms_per_run: (cpu.user + cpu.system) / 1000 / Math.max(iters, 1),
    rate_hz: rateHz,
    missed: missed,
    peak_rss_kib: process.resourceUsage().maxRSS,
    ort_version: require('onnxruntime-node/package.json').version,
  }) + '\n');
})().catch((e) => {
  process.stderr.write(`error: ${e && e.stack ? e.stack : e}\n`);
  process.exit(1);
});
