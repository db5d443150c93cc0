// The viewer in a real browser (issue 42): playwright-core (web/package.json) driving Debian's
// chromium, headless, against `dudley view` of one file. The case (a JSON file written by
// run_viewer_test.py) says the page's address, the items the tree must list, and for an array
// the colours matplotlib gives to known cells of two of its slices and the values a table page
// must show. Screenshots go to the artifacts directory. Exit 0 when every check holds.
import { readFileSync } from "node:fs";
import assert from "node:assert/strict";
import { chromium } from "../../web/node_modules/playwright-core/index.mjs";

const [casePath, artifacts] = process.argv.slice(2);
const c = JSON.parse(readFileSync(casePath, "utf8"));
const browser = await chromium.launch({ executablePath: process.env.CHROMIUM ?? "/usr/bin/chromium",
  args: ["--no-sandbox", "--disable-gpu"] });
const problems = [];
try {
  const page = await browser.newPage({ viewport: { width: 1300, height: 1000 } });
  page.on("console", (m) => { if (m.type() === "error") problems.push(`console: ${m.text()}`); });
  page.on("pageerror", (e) => problems.push(`page error: ${e}`));
  await page.goto(c.url);
  await page.waitForSelector("body[data-ready='1']", { timeout: 20000 });

  // The tree lists every item.
  const listed = await page.$$eval("#tree li", (lis) => lis.map((li) => li.dataset.path).sort());
  assert.deepEqual(listed, [...c.items].sort(), "the tree lists every item");

  // Search by name keeps the matches (and the groups above them) and hides the rest.
  if (c.search) {
    await page.fill("#search", c.search.text);
    const visible = await page.$$eval("#tree li", (lis) => lis.filter((li) => !li.hidden).map((li) => li.dataset.path).sort());
    assert.deepEqual(visible, [...c.search.visible].sort(), "search shows the matches");
    await page.fill("#search", "");
  }

  // Clicking the array draws its first slice as a heatmap with matplotlib's colours.
  const drawn = async () => page.$eval("#canvas", (e) => Number(e.dataset.drawn ?? 0));
  const before = await drawn();
  await page.click(`#tree li[data-path='${c.array.path}'] > .node`);
  await page.waitForFunction((n) => Number(document.querySelector("#canvas").dataset.drawn ?? 0) > n, before);
  async function checkCells(cells, what) {
    const got = await page.$eval("#canvas", (canvas, cells) => {
      const l = JSON.parse(canvas.dataset.layout);
      const g = canvas.getContext("2d");
      return cells.map(([r, col, rows, cols]) => {
        const x = l.x + Math.floor(((col + 0.5) * l.width) / cols);
        const y = l.y + Math.floor(((r + 0.5) * l.height) / rows);
        return Array.from(g.getImageData(x, y, 1, 1).data.slice(0, 3));
      });
    }, cells.map((e) => [e.row, e.col, e.rows, e.cols]));
    cells.forEach((e, i) => assert.deepEqual(got[i], e.rgb, `${what}: cell (${e.row}, ${e.col}) of value ${e.value}`));
  }
  await checkCells(c.array.first.cells, "first slice");
  // Hovering a cell says its indexes and its value.
  const cell = c.array.first.cells[3 * 8 + 5];  // row 3, column 5
  const point = await page.$eval("#canvas", (canvas, [r, col, rows, cols]) => {
    const l = JSON.parse(canvas.dataset.layout), box = canvas.getBoundingClientRect();
    const x = l.x + ((col + 0.5) * l.width) / cols, y = l.y + ((r + 0.5) * l.height) / rows;
    return [box.x + (x * box.width) / canvas.width, box.y + (y * box.height) / canvas.height];
  }, [cell.row, cell.col, cell.rows, cell.cols]);
  await page.mouse.move(point[0], point[1]);
  const said = await page.textContent("#hover");
  assert.ok(said.endsWith(`: ${cell.value}`) && said.includes(" 3, ") && said.includes(" 5:"),
            `hover says the cell: ${said}`);
  await page.screenshot({ path: `${artifacts}/${c.name}-heatmap.png` });

  // Moving the slider of the first dimension draws another slice.
  const n = await drawn();
  await page.$eval("#dims input[type=range][data-dim='0']", (s, v) => {
    s.value = String(v); s.dispatchEvent(new Event("input"));
  }, c.array.second.index);
  await page.waitForFunction((n) => Number(document.querySelector("#canvas").dataset.drawn ?? 0) > n, n);
  await checkCells(c.array.second.cells, "second slice");
  await page.screenshot({ path: `${artifacts}/${c.name}-slider.png` });

  // Another colour map, reversed: the same cells in its colours, without asking the server.
  await page.selectOption("#colormap", "magma");
  await page.check("#reverse");
  await checkCells(c.array.second.magma_reversed, "magma reversed");

  // The table shows the slice's values ("--" where a mask hides one).
  await page.click("#tab-table");
  await page.waitForSelector("#values tr:nth-child(2) td");
  const table = await page.$$eval("#values tr", (trs) => trs.slice(1).map((tr) =>
    Array.from(tr.querySelectorAll("td")).map((td) => (td.textContent === "--" ? null : Number(td.textContent)))));
  assert.deepEqual(table, c.array.second.table, "the table's values");
  await page.screenshot({ path: `${artifacts}/${c.name}-table.png` });

  // A table of large elements pages by what one read holds (1 x 20 of 2 MiB strings here):
  // "Next rows" shows the next row, with the values h5py reads there.
  if (c.paging) {
    await page.click(`#tree li[data-path='${c.paging.path}'] > .node`);
    await page.waitForFunction((t) => document.querySelector("#page-info").textContent === t, c.paging.first);
    await page.click("#page-down");
    await page.waitForFunction((t) => document.querySelector("#page-info").textContent === t, c.paging.second);
    const rows = await page.$$eval("#values tr", (trs) => trs.slice(1).map((tr) =>
      [tr.querySelector("th").textContent, ...Array.from(tr.querySelectorAll("td")).map((td) => td.textContent)]));
    assert.deepEqual(rows, [["1", ...c.paging.row]], "the second page of large strings");
    await page.screenshot({ path: `${artifacts}/${c.name}-paging.png` });
    await page.click(`#tree li[data-path='${c.array.path}'] > .node`);
  }

  // A 1-D array as a line.
  await page.click("#tab-plot");
  if (c.line.path) {
  await page.click(`#tree li[data-path='${c.line.path}'] > .node`);
  await page.waitForFunction((p) => document.querySelector("#canvas").dataset.item === p, c.line.path);
  assert.equal(await page.$eval("#canvas", (e) => e.dataset.kind), "line");
  const blue = await page.$eval("#canvas", (canvas) => {
    const l = JSON.parse(canvas.dataset.layout);
    const d = canvas.getContext("2d").getImageData(l.x, l.y, l.width, l.height).data;
    let n = 0;
    for (let i = 0; i < d.length; i += 4) if (Math.abs(d[i] - 31) < 40 && Math.abs(d[i + 1] - 119) < 40 && d[i + 2] > 140) n++;
    return n;
  });
  assert.ok(blue > 200, `the line is drawn (${blue} line-coloured pixels)`);
  await page.screenshot({ path: `${artifacts}/${c.name}-line.png` });

  // The wheel zooms in around the pointer: a narrower range is read; a double click shows
  // all again.
  const box = await page.$eval("#canvas", (e) => { const r = e.getBoundingClientRect(); return [r.x, r.y, r.width, r.height]; });
  await page.mouse.move(box[0] + box[2] / 2, box[1] + box[3] / 2);
  await page.mouse.wheel(0, -400);
  await page.waitForFunction((p) => document.querySelector("#canvas").dataset.item.startsWith(`${p}[`), c.line.path);
  const zoomed = await page.$eval("#canvas", (e) => e.dataset.item);
  const [lo, hi] = zoomed.slice(c.line.path.length + 1, -1).split(":").map(Number);
  assert.ok(hi - lo < c.line.length && hi - lo >= 2 && lo > 0, `zoomed in: ${zoomed}`);
  await page.dblclick("#canvas");
  await page.waitForFunction((p) => document.querySelector("#canvas").dataset.item === p, c.line.path);
  }

  // A 2-D slice as lines, one per row, in matplotlib's colour cycle.
  await page.click(`#tree li[data-path='${c.array.path}'] > .node`);
  await page.waitForFunction((p) => document.querySelector("#canvas").dataset.item?.startsWith(p), c.array.path);
  await page.selectOption("#style", "lines");
  await page.waitForFunction(() => document.querySelector("#canvas").dataset.kind === "lines");
  const cycle = await page.$eval("#canvas", (canvas) => {
    const l = JSON.parse(canvas.dataset.layout);
    const d = canvas.getContext("2d").getImageData(l.x, l.y, l.width, l.height).data;
    const want = [[31, 119, 180], [255, 127, 14], [44, 160, 44], [214, 39, 40], [148, 103, 189], [140, 86, 75]];
    return want.filter(([r, g, b]) => {
      for (let i = 0; i < d.length; i += 4) if (d[i] === r && d[i + 1] === g && d[i + 2] === b) return true;
      return false;
    }).length;
  });
  assert.equal(cycle, 6, "six rows, six lines in six colours");
  await page.screenshot({ path: `${artifacts}/${c.name}-lines.png` });
  await page.selectOption("#style", "heatmap");
  console.log(`${c.name}: every check holds`);
} catch (e) {
  problems.push(String(e.stack ?? e));
} finally {
  await browser.close();
}
if (problems.length) {
  console.error(`${c.name}:\n  ` + problems.join("\n  "));
  process.exit(1);
}
