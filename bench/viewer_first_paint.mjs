// The viewer's first paint (issue 42): milliseconds from a click on an array in the tree to
// its heatmap on the canvas, in Debian's chromium driven by playwright-core. Prints one JSON
// object: {"PATH": [ms, ...], ...}, the paths clicked in turn RUNS times each.
// Usage: node bench/viewer_first_paint.mjs URL RUNS PATH...
import { chromium } from "../web/node_modules/playwright-core/index.mjs";

const [url, runs, ...paths] = process.argv.slice(2);
const browser = await chromium.launch({ executablePath: process.env.CHROMIUM ?? "/usr/bin/chromium",
  args: ["--no-sandbox", "--disable-gpu"] });
const page = await browser.newPage({ viewport: { width: 1300, height: 1000 } });
await page.goto(url);
await page.waitForSelector("body[data-ready='1']");
const times = Object.fromEntries(paths.map((p) => [p, []]));
for (let r = 0; r < Number(runs); r++) {
  for (const p of paths) {
    const item = await page.$eval("#canvas", (c) => c.dataset.item ?? "");
    const t0 = Date.now();
    await page.click(`#tree li[data-path='${p}'] > .node`);
    // Drawn: the canvas says which item it shows, and it is this one (a new draw).
    await page.waitForFunction(([p, before, n]) => {
      const c = document.querySelector("#canvas");
      return c.dataset.item?.startsWith(p) && Number(c.dataset.drawn) > n;
    }, [p, item, await page.$eval("#canvas", (c) => Number(c.dataset.drawn ?? 0))], { polling: "raf" });
    times[p].push(Date.now() - t0);
  }
}
await browser.close();
console.log(JSON.stringify(times));
