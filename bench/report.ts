// Judging the targets and printing the one table (console, markdown and JSON files).
import type { BenchCase, Target } from "./cases.js";
import type { Measurement } from "./load.js";

export interface Verdict {
  target: string;
  /** "pass"/"FAIL" count; "(pass)"/"(fail)" are information only (a latency goal set for more rows). */
  status: "pass" | "FAIL" | "(pass)" | "(fail)";
}

export interface CaseResult {
  name: string;
  description: string;
  server: BenchCase["server"];
  /** Set when the case could not be measured (its answer was wrong): the reason. */
  problem?: string;
  measurement?: Measurement;
  bare?: string;
  /** req/s of this case ÷ req/s of its bare counterpart (in the windows alongside this case's, when measured so). */
  ratio?: number;
  /** req/s of the bare counterpart in the windows alternating with this case's. */
  bareAlongside?: number;
  /** With --against: this build and the other one in alternating windows of the same minutes. */
  against?: AgainstComparison;
  verdicts: Verdict[];
}

/** One case on two builds, window by window (req/s and server CPU ms per answer of each window). */
export interface AgainstComparison {
  ownWindows: { requestsPerSecond: number; serverCpuMsPerAnswer: number | null }[];
  /** Windows per pair of processes (--rounds; --processes pairs): each build's windows in pairs' order. */
  windowsPerPair: number;
  otherWindows: { requestsPerSecond: number; serverCpuMsPerAnswer: number | null }[];
  /** Medians over each build's windows. */
  ownMedian: number;
  otherMedian: number;
  /** ownMedian ÷ otherMedian. */
  ratio: number;
  ownCpuMedian: number | null;
  otherCpuMedian: number | null;
}

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
};

export function againstComparison(own: { measurement: Measurement }[], other: { measurement: Measurement }[], windowsPerPair: number): AgainstComparison {
  const windows = (slices: { measurement: Measurement }[]) =>
    slices.map(({ measurement }) => ({ requestsPerSecond: measurement.requestsPerSecond, serverCpuMsPerAnswer: measurement.serverCpuMsPerAnswer }));
  const ownWindows = windows(own);
  const otherWindows = windows(other);
  const cpuMedian = (list: typeof ownWindows) => (list.every((entry) => entry.serverCpuMsPerAnswer !== null) ? median(list.map((entry) => entry.serverCpuMsPerAnswer!)) : null);
  const ownMedian = median(ownWindows.map((entry) => entry.requestsPerSecond));
  const otherMedian = median(otherWindows.map((entry) => entry.requestsPerSecond));
  return { ownWindows, otherWindows, windowsPerPair, ownMedian, otherMedian, ratio: ownMedian / otherMedian, ownCpuMedian: cpuMedian(ownWindows), otherCpuMedian: cpuMedian(otherWindows) };
}

/** Each window's req/s, in order: "888/1184/…"; with pairs of processes, each pair's apart: "888/1184 ; 951/1002". */
const eachWindow = (list: AgainstComparison["ownWindows"], perPair: number) =>
  Array.from({ length: Math.ceil(list.length / perPair) }, (_, pair) => list.slice(pair * perPair, (pair + 1) * perPair))
    .map((windows) => windows.map((entry) => entry.requestsPerSecond.toFixed(0)).join("/"))
    .join(" ; ");
const cpuMs = (value: number | null) => (value === null ? "–" : value.toFixed(2));

export function againstLine(comparison: AgainstComparison): string {
  return (
    `other ${comparison.otherMedian.toFixed(0)} → this ${comparison.ownMedian.toFixed(0)} req/s (${comparison.ratio.toFixed(2)}), ` +
    `CPU ms ${cpuMs(comparison.otherCpuMedian)} → ${cpuMs(comparison.ownCpuMedian)}; windows ${eachWindow(comparison.otherWindows, comparison.windowsPerPair)} / ${eachWindow(comparison.ownWindows, comparison.windowsPerPair)}`
  );
}

/** What the --against table compares, as a heading. */
export function againstHeading(report: RunReport): string {
  const pairs = report.load.processes ?? 1;
  return `Against ${report.against} (the other build), in alternating windows${pairs > 1 ? ` on ${pairs} new pairs of processes per case, ${report.load.rounds} windows of each build per pair (pairs apart by " ; ")` : ""}`;
}

/** The --against table: medians of each build's windows, their ratio, and every window. */
export function againstTable(report: RunReport): string {
  const rows = report.cases.filter((result) => result.against);
  if (!rows.length) return "";
  return [
    "| case | req/s other → this (ratio of medians) | CPU ms per answer, other → this | each window, other / this |",
    "|---|---|---|---|",
    ...rows.map(({ name, against: c }) => `| ${name} | ${c!.otherMedian.toFixed(0)} → ${c!.ownMedian.toFixed(0)} (${c!.ratio.toFixed(2)}) | ${cpuMs(c!.otherCpuMedian)} → ${cpuMs(c!.ownCpuMedian)} | ${eachWindow(c!.otherWindows, c!.windowsPerPair)} / ${eachWindow(c!.ownWindows, c!.windowsPerPair)} |`),
  ].join("\n");
}

export interface RunReport {
  date: string;
  command: string;
  mode: "postgresql" | "pglite";
  rows: { wikiPages: number; wikiRevisions: number; blogEntries: number };
  seedSeconds: number;
  load: { connections: number; seconds: number; warmupSeconds: number; rounds: number; processes?: number };
  machine: { cpus: number; memoryGiB: number; node: string; database: string; loadAverageBefore: number[]; loadAverageAfter: number[]; commit: string };
  cases: CaseResult[];
  serverMemory: { rssMb: number; peakMb: number; limitMb: number; verdict: Verdict } | null;
  summary: { passed: number; failed: number; informational: number };
  /** With --against: the other build's folder and commit. */
  against?: string;
}

function describe(target: Target, bare?: string): string {
  switch (target.kind) {
    case "ratio":
      return `≥${target.min.toFixed(2)}× ${bare}`;
    case "ratioOf":
      return `≥${target.min.toFixed(2)}× ${target.of}`;
    case "cpu":
      return `CPU≤${target.maxMs}ms/answer`;
    default:
      return `p50≤${target.maxMs}ms@${target.atRows.toExponential().replace("e+", "e")}`;
  }
}

export function judge(
  benchCase: BenchCase,
  measurement: Measurement,
  bareMeasurement: Measurement | undefined,
  wikiPages: number,
  measured: ReadonlyMap<string, Measurement> = new Map(),
): { ratio?: number; verdicts: Verdict[] } {
  const ratio = bareMeasurement ? measurement.requestsPerSecond / bareMeasurement.requestsPerSecond : undefined;
  const verdicts: Verdict[] = [];
  if (measurement.requests === 0) verdicts.push({ target: "an answer within the run", status: "FAIL" });
  for (const target of benchCase.targets) {
    if (target.kind === "ratio") {
      if (ratio === undefined) continue; // no bare server (--pglite) or its case was not run
      verdicts.push({ target: describe(target, benchCase.bare), status: ratio >= target.min ? "pass" : "FAIL" });
    } else if (target.kind === "ratioOf") {
      const other = measured.get(target.of);
      if (!other?.requestsPerSecond) continue; // not run (--only, --pglite) or not measured
      const of = measurement.requestsPerSecond / other.requestsPerSecond;
      verdicts.push({ target: `${describe(target)} (${of.toFixed(2)})`, status: of >= target.min ? "pass" : "FAIL" });
    } else if (target.kind === "cpu") {
      const cpu = measurement.serverCpuMsPerAnswer;
      if (cpu === null) continue;
      verdicts.push({ target: describe(target), status: cpu <= target.maxMs ? "pass" : "FAIL" });
    } else {
      const met = measurement.p50 <= target.maxMs;
      const binding = wikiPages >= target.atRows;
      verdicts.push({ target: describe(target), status: binding ? (met ? "pass" : "FAIL") : met ? "(pass)" : "(fail)" });
    }
  }
  if (benchCase.server === "hubgraph") {
    verdicts.push({ target: "no non-2xx", status: measurement.non2xx === 0 && measurement.failures === 0 ? "pass" : "FAIL" });
  }
  return { ratio, verdicts };
}

export function summarize(cases: CaseResult[], memoryVerdict?: Verdict): RunReport["summary"] {
  const all = [...cases.flatMap((result) => result.verdicts), ...(memoryVerdict ? [memoryVerdict] : [])];
  return {
    passed: all.filter((verdict) => verdict.status === "pass").length,
    failed: all.filter((verdict) => verdict.status === "FAIL").length + cases.filter((result) => result.problem).length,
    informational: all.filter((verdict) => verdict.status.startsWith("(")).length,
  };
}

const number = (value: number | undefined, digits: number) => (value === undefined || Number.isNaN(value) ? "–" : value.toFixed(digits));

/** The table as aligned markdown: readable in a terminal and quotable in docs as it is. */
export function markdownTable(report: RunReport): string {
  // "answers": how many the percentiles rest on (few for slow cases: read them with care).
  const header = ["case", "answers", "req/s", "p50 ms", "p99 ms", "non-2xx", "failed", "CPU ms/answer", "× bare", "targets"];
  const rows = report.cases.map((result) => {
    const m = result.measurement;
    const targets = result.problem ? `WRONG ANSWER: ${result.problem}` : result.verdicts.map((verdict) => `${verdict.target} ${verdict.status}`).join("; ");
    return [
      `${result.name} — ${result.description}`,
      m ? String(m.requests) : "–",
      number(m?.requestsPerSecond, 0),
      number(m?.p50, 1),
      number(m?.p99, 1),
      m ? String(m.non2xx) : "–",
      m ? String(m.failures) : "–",
      number(m?.serverCpuMsPerAnswer ?? undefined, 2),
      result.ratio === undefined ? "" : `${result.ratio.toFixed(2)} (${result.bare}${result.bareAlongside === undefined ? "" : ` ${result.bareAlongside.toFixed(0)} req/s alongside`})`,
      targets,
    ];
  });
  const widths = header.map((title, column) => Math.max(title.length, ...rows.map((row) => row[column]!.length)));
  const numeric = new Set([1, 2, 3, 4, 5, 6, 7]);
  const line = (cells: string[]) => `| ${cells.map((cell, column) => (numeric.has(column) ? cell.padStart(widths[column]!) : cell.padEnd(widths[column]!))).join(" | ")} |`;
  const rule = `|${widths.map((width, column) => (numeric.has(column) ? `${"-".repeat(width + 1)}:` : "-".repeat(width + 2))).join("|")}|`;
  return [line(header), rule, ...rows.map(line)].join("\n");
}

export function markdownReport(report: RunReport): string {
  const memory = report.serverMemory;
  const { machine, load, rows } = report;
  return [
    `Date ${report.date}, \`${report.command}\` (commit ${machine.commit}).`,
    `${report.mode === "pglite" ? "Hubgraph on embedded PGlite" : `PostgreSQL ${machine.database}`}; ${rows.wikiPages} wiki pages, ${rows.wikiRevisions} revisions, ${rows.blogEntries} blog entries (seeded in ${report.seedSeconds.toFixed(0)} s).`,
    `${load.connections} connections, ${load.seconds} s per case after ${load.warmupSeconds} s warm-up on it` +
      `${load.rounds > 1 ? ` (a case with a bare counterpart: ${load.rounds} windows, each after one of the bare case's)` : ""}; ` +
      `${machine.cpus} CPUs, ${machine.memoryGiB} GiB, Node ${machine.node}; load average ${machine.loadAverageBefore.map((value) => value.toFixed(1)).join(" ")} before, ${machine.loadAverageAfter.map((value) => value.toFixed(1)).join(" ")} after.`,
    "",
    markdownTable(report),
    "",
    ...(report.against ? [`${againstHeading(report)}:`, "", againstTable(report), ""] : []),
    memory
      ? `Hubgraph server RSS after the run: ${memory.rssMb.toFixed(0)} MB (peak ${memory.peakMb.toFixed(0)} MB); ≤${memory.limitMb} MB ${memory.verdict.status}.`
      : "Hubgraph server RSS: not measured.",
    `Targets: ${report.summary.passed} pass, ${report.summary.failed} FAIL` +
      (report.summary.informational ? `, ${report.summary.informational} in parentheses (latency goals set for 10^6 rows; information only at ${rows.wikiPages} rows).` : "."),
  ].join("\n");
}
