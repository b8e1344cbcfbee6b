import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import puppeteer, { type Browser, type HTTPResponse, type Page } from "puppeteer-core";

/**
 * Headless Chromium for tests that need a real browser (GraphiQL, the API docs page). Debian's `chromium`
 * package provides it (`.ci/run` installs it when apt-get is available); without it these tests skip.
 *
 * A page test is a few lines:
 *
 *   describe.skipIf(!hasBrowser)("API docs in a browser", () => {
 *     // beforeAll: server = await startServer(); browser = await launchBrowser();  afterAll: close both
 *     it("shows an operation", async () => {
 *       const opened = await browser.open(`${server.url}/api/docs`);
 *       await waitForText(opened.page, "body", (text) => text.includes("/wiki/list"));
 *       expect(offlineProblems(opened)).toEqual([]);
 *     });
 *   });
 */
export const CHROMIUM_PATH = "/usr/bin/chromium";
export const hasBrowser = fs.existsSync(CHROMIUM_PATH);
export const SKIPPED_LINE = `skipped: browser test (no chromium at ${CHROMIUM_PATH})`;

/** Generous: CI machines run several test files at once, and GraphiQL is a 5 MB bundle. */
const NAVIGATION_TIMEOUT = 60_000;
const LOOPBACK_HOSTS = new Set(["127.0.0.1", "localhost", "[::1]"]);

export interface BrowserRequest {
  url: string;
  /** Where the request came from: the page itself or one of its web workers. */
  from: "page" | "worker";
  resourceType: string;
}

export interface OpenedPage {
  page: Page;
  /** Every request the page and its workers made, in order (data: and blob: URLs left out). */
  requests: BrowserRequest[];
  /** Responses of the page's own requests (not the workers'). */
  responses: HTTPResponse[];
  /** Uncaught exceptions and console errors, for failure messages. */
  errors: string[];
}

export interface TestBrowser {
  /** A fresh tab (its own cookies and storage) on `url`, once the page has loaded. */
  open(url: string): Promise<OpenedPage>;
  close(): Promise<void>;
}

export async function launchBrowser(): Promise<TestBrowser> {
  const userDataDir = fs.mkdtempSync(path.join(os.tmpdir(), "hubgraph-chromium-"));
  const browser: Browser = await puppeteer.launch({
    executablePath: CHROMIUM_PATH,
    headless: true,
    // Wide enough that GraphiQL's result pane does not wrap short JSON lines.
    defaultViewport: { width: 1600, height: 1000 },
    userDataDir,
    args: [
      "--headless",
      "--no-sandbox",
      "--disable-gpu",
      "--disable-background-networking",
      "--disable-component-update",
      "--no-first-run",
      "--disable-quic",
      "--disable-sync",
      `--user-data-dir=${userDataDir}`,
    ],
  });
  return {
    async open(url) {
      const context = await browser.createBrowserContext();
      const page = await context.newPage();
      const opened: OpenedPage = { page, requests: [], responses: [], errors: [] };
      const record = (from: BrowserRequest["from"], requestUrl: string, resourceType: string) => {
        if (!/^(data|blob):/.test(requestUrl)) opened.requests.push({ url: requestUrl, from, resourceType });
      };
      page.on("request", (request) => record("page", request.url(), request.resourceType()));
      page.on("response", (response) => void opened.responses.push(response));
      page.on("pageerror", (error) => void opened.errors.push(String(error)));
      page.on("console", (message) => {
        if (message.type() === "error") opened.errors.push(`console: ${message.text()}`);
      });
      // A worker's own script is fetched by the page; anything the worker fetches itself is recorded here.
      page.on("workercreated", (worker) => {
        record("worker", worker.url(), "worker");
        void worker.client.send("Network.enable").then(
          () => worker.client.on("Network.requestWillBeSent", (event) => record("worker", event.request.url, event.type ?? "other")),
          () => {},
        );
      });
      // "load", not network idle: on a busy machine a page that keeps starting workers is never idle for long.
      await page.goto(url, { waitUntil: "load", timeout: NAVIGATION_TIMEOUT });
      return opened;
    },
    async close() {
      await browser.close();
      fs.rmSync(userDataDir, { recursive: true, force: true });
    },
  };
}

/**
 * What keeps a page from working offline: requests that left the machine, and files that failed to load
 * (status 400 and above; `expectedFailure` picks answers that may fail, such as a probe for a session).
 */
export function offlineProblems(opened: OpenedPage, expectedFailure: (response: HTTPResponse) => boolean = () => false): string[] {
  return [
    ...nonLoopbackRequests(opened.requests).map((request) => `left the machine: ${request.from} ${request.url}`),
    ...opened.responses
      .filter((response) => response.status() >= 400 && !expectedFailure(response))
      .map((response) => `failed: ${response.status()} ${response.url()}`),
  ];
}

/**
 * What the page's Content-Security-Policy refused (Chromium reports each refusal as a console error), and
 * errors thrown by evaluating strings (a page needing 'unsafe-eval'): a page that works only without the
 * policy would show here.
 */
export function policyViolations(opened: OpenedPage): string[] {
  return opened.errors.filter((error) => /Content Security Policy|unsafe-eval|EvalError/i.test(error));
}

/** Requests that left the machine: anything not addressed to a loopback host. */
export function nonLoopbackRequests(requests: BrowserRequest[]): BrowserRequest[] {
  return requests.filter((request) => !LOOPBACK_HOSTS.has(new URL(request.url).hostname));
}

/** Waits until the text of the first element matching `selector` satisfies `test`; returns that text. */
export async function waitForText(page: Page, selector: string, test: (text: string) => boolean, timeout = 45_000): Promise<string> {
  const deadline = Date.now() + timeout;
  let last = "";
  while (Date.now() < deadline) {
    // Monaco draws spaces as no-break spaces.
    last = await page.$eval(selector, (element) => (element as HTMLElement).innerText.replace(/\u00a0/g, " ")).catch(() => "");
    if (test(last)) return last;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`timed out waiting for ${selector}; its text was: ${last.slice(0, 500) || "(none)"}`);
}
