// The matrix grid of toolkit's MatrixExplorer: an anywidget ES module, no dependencies.
//
// The kernel sends the cells as one int8 buffer (one byte per cell: an index into
// `labels`, `effects`, `palette`, `marks` and `ranks`) and the names as arrays. Only the
// cells in view are in the DOM (virtual scrolling in both directions), so 200 agents x
// 5,000 tools paint as fast as 20 x 50. Headers stay in place while the body scrolls.
// Every name is data from the project or a server: it is only ever set as textContent or
// an attribute, never as HTML.
//
// Keyboard: the grid takes focus (Tab); arrows, Home/End and PageUp/PageDown move the
// focused cell, Enter (or Space) explains it as a click does. ARIA grid roles carry the
// full size (aria-rowcount / aria-colcount) and each painted cell's place, since only the
// cells in view exist.

const ROW_H = 22;
const COL_W = 26;
const FONT_PX = 12;

const CSS = `
.tk-grid-root { font: ${FONT_PX}px/1.3 var(--jp-ui-font-family, sans-serif); color: var(--jp-ui-font-color1, #1f2328); }
.tk-bar { display: flex; flex-wrap: wrap; gap: 6px; align-items: center; margin: 4px 0; }
.tk-bar input, .tk-bar select, .tk-bar button { font: inherit; padding: 2px 4px; }
.tk-bar input { width: 13em; }
.tk-info, .tk-status { color: var(--jp-ui-font-color2, #59636e); margin-left: 4px; }
.tk-grid { display: grid; border: 1px solid #d0d7de; max-width: 100%; }
.tk-grid:focus { outline: 2px solid var(--jp-brand-color1, #0969da); outline-offset: 1px; }
.tk-corner, .tk-colhead, .tk-rowhead { background: var(--jp-layout-color2, #f6f8fa); overflow: hidden; position: relative; }
.tk-corner { border-right: 1px solid #d0d7de; border-bottom: 1px solid #d0d7de; }
.tk-colhead { border-bottom: 1px solid #d0d7de; }
.tk-rowhead { border-right: 1px solid #d0d7de; }
.tk-body { overflow: auto; position: relative; }
.tk-spacer, .tk-colhead-inner, .tk-rowhead-inner { position: relative; }
.tk-row { position: absolute; left: 0; height: ${ROW_H}px; }
.tk-cell, .tk-rowlabel, .tk-collabel, .tk-levelname { position: absolute; box-sizing: border-box; white-space: nowrap; overflow: hidden; text-overflow: ellipsis; }
.tk-cell { top: 0; width: ${COL_W - 1}px; height: ${ROW_H - 1}px; color: #fff; text-align: center; line-height: ${ROW_H - 1}px; cursor: pointer; font-size: 11px; }
.tk-cell:hover { outline: 2px solid #1f2328; z-index: 1; }
.tk-cell.tk-selected { outline: 3px solid #fb8500; z-index: 2; }
.tk-grid:focus .tk-cell.tk-active { outline: 3px dashed var(--jp-ui-font-color0, #000); outline-offset: -1px; z-index: 3; }
.tk-rowlabel { height: ${ROW_H}px; line-height: ${ROW_H}px; padding: 0 6px; font-family: var(--jp-code-font-family, monospace); cursor: pointer; }
.tk-collabel { writing-mode: vertical-rl; transform: rotate(180deg); padding: 4px 2px; text-align: left; border-left: 1px solid #e1e4e8; }
.tk-collabel.tk-sortable { cursor: pointer; }
.tk-collabel.tk-run { writing-mode: horizontal-tb; transform: none; padding: 0 4px; text-align: center; border-left: 1px solid #d0d7de; border-bottom: 2px solid #d0d7de; }
.tk-sorted-asc::after { content: " ▲"; }
.tk-sorted-desc::after { content: " ▼"; }
.tk-levelname { right: 6px; color: var(--jp-ui-font-color2, #59636e); font-style: italic; }
.tk-empty { padding: 1em; color: var(--jp-ui-font-color2, #59636e); font-size: 13px; }
.tk-sr { position: absolute; width: 1px; height: 1px; overflow: hidden; clip-path: inset(50%); white-space: nowrap; }
`;

let gridCount = 0;

function el(tag, cls, text) {
  const node = document.createElement(tag);
  if (cls) node.className = cls;
  if (text !== undefined) node.textContent = text;
  return node;
}

function options(select, values) {
  select.replaceChildren(...values.map((v, i) => {
    const o = el("option", "", v);
    o.value = String(i - 1); // -1: "any"
    return o;
  }));
}

// One filter term: a glob when it has * or ?, else a case-insensitive substring.
function term(t) {
  if (/[*?]/.test(t)) {
    const body = t.replace(/[.+^${}()|[\]\\]/g, "\\$&").replace(/\*/g, ".*").replace(/\?/g, ".");
    const re = new RegExp(`^${body}$`);
    return (name) => re.test(name);
  }
  return (name) => name.includes(t);
}

// A filter: comma-separated terms ("svc01_*, svc02_read*"), any of which may match.
function matcher(text) {
  const terms = text.toLowerCase().split(",").map((t) => t.trim()).filter((t) => t);
  if (!terms.length) return () => true;
  const tests = terms.map(term);
  return (name) => {
    const lower = name.toLowerCase();
    return tests.some((test) => test(lower));
  };
}

// The theme's font for a CSS variable (JupyterLab defines them on :root), for measuring.
function themeFont(variable, fallback) {
  const family = getComputedStyle(document.documentElement).getPropertyValue(variable).trim();
  return `${FONT_PX}px ${family || fallback}`;
}

let measureContext = null;

function measurer(font) {
  measureContext = measureContext || document.createElement("canvas").getContext("2d");
  measureContext.font = font;
  return (text) => measureContext.measureText(text).width;
}

// The rendered width of each text in `font` (canvas measureText: the real glyphs).
function widths(texts, font) {
  const measure = measurer(font);
  const out = new Map();
  for (const t of texts) if (!out.has(t)) out.set(t, measure(t));
  return out;
}

// The width of the widest text in `font`, measuring only the texts that could be wider
// than a longest one (5,000 names: a few measured in a monospace font, not all).
function widest(texts, font) {
  const measure = measurer(font);
  let longest = "";
  for (const t of texts) if (t.length > longest.length) longest = t;
  let most = measure(longest);
  // no glyph of these is narrower than the widest of a few wide ones: a text shorter than
  // most / that width cannot be wider (texts beyond printable ASCII are always measured)
  const glyph = Math.max(...["W", "M", "@", "%", "m", "_"].map(measure));
  const shortest = most / glyph;
  for (const t of texts) {
    if (t.length > shortest || /[^\x20-\x7e]/.test(t)) most = Math.max(most, measure(t));
  }
  return most;
}

// One CSV field; a leading = + - @ is quoted away so a spreadsheet reads a name, never a formula.
function csvField(value) {
  let s = String(value);
  if (/^[=+\-@\t\r]/.test(s)) s = `'${s}`;
  return /[",\r\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

function render({ model, el: root }) {
  root.dataset.rendered = String(performance.now());
  root.classList.add("tk-grid-root", "toolkit-matrix-grid");
  root.dataset.lmSuppressShortcuts = "true";
  root.appendChild(el("style", "", CSS));
  const uid = `tk-grid-${++gridCount}-${Math.random().toString(36).slice(2, 8)}`;
  const bar = el("div", "tk-bar");
  const toolBox = el("input", "tk-filter-tools");
  toolBox.placeholder = "tools: names or globs, a, b*";
  toolBox.title = "a name part or a glob (svc0*_read_*); several separated by commas";
  const agentBox = el("input", "tk-filter-columns");
  agentBox.placeholder = "columns: agent, group, state…";
  agentBox.title = "a part of a column's agent, group set, state or preset; several separated by commas";
  const serverSel = el("select", "tk-filter-server");
  const groupSel = el("select", "tk-filter-group");
  const effectSel = el("select", "tk-filter-effect");
  const sortSel = el("select", "tk-sort");
  options(sortSel, ["tools A→Z", "most agents first", "fewest agents first"]);
  const colSortSel = el("select", "tk-sort-columns");
  options(colSortSel, ["columns as given", "most tools first", "fewest tools first"]);
  const resetButton = el("button", "tk-reset", "reset");
  resetButton.title = "clear the filters and the sort";
  const csvButton = el("button", "tk-export-csv", "CSV");
  csvButton.title = "download the rows and columns in view as CSV (each cell its effect)";
  const copyButton = el("button", "tk-export-copy", "copy");
  copyButton.title = "copy the rows and columns in view as CSV";
  for (const b of [resetButton, csvButton, copyButton]) b.type = "button";
  const info = el("span", "tk-info");
  const status = el("span", "tk-status");
  status.setAttribute("role", "status");
  bar.append(toolBox, agentBox, serverSel, groupSel, effectSel, sortSel, colSortSel,
             resetButton, csvButton, copyButton, info, status);
  const grid = el("div", "tk-grid");
  grid.tabIndex = 0;
  grid.setAttribute("role", "grid");
  grid.setAttribute("aria-label", "tool matrix: rows tools, columns agents; Enter explains a cell");
  const corner = el("div", "tk-corner");
  corner.setAttribute("aria-hidden", "true");
  const colHead = el("div", "tk-colhead");
  const colInner = el("div", "tk-colhead-inner");
  const rowHead = el("div", "tk-rowhead");
  rowHead.setAttribute("aria-hidden", "true"); // each row names its tool for assistive tech
  const rowInner = el("div", "tk-rowhead-inner");
  const body = el("div", "tk-body");
  const spacer = el("div", "tk-spacer");
  colHead.appendChild(colInner);
  rowHead.appendChild(rowInner);
  body.appendChild(spacer);
  grid.append(corner, colHead, rowHead, body);
  const empty = el("div", "tk-empty");
  root.append(bar, grid, empty);

  let d = null; // the data of the current matrix
  let rows = new Int32Array(0); // tool indexes in view order
  let cols = new Int32Array(0); // column indexes in view order
  let headHeights = [];
  let frame = 0;
  let active = [0, 0]; // the focused cell: [row, column] in view order
  let headSort = null; // {axis: "rows" | "columns", index, dir: 1 | -1}: a header click's sort
  let painted = { r0: 0, r1: 0, c0: 0, c1: 0 }; // the rows and columns in the DOM

  function load() {
    const view = model.get("codes");
    const nRows = model.get("n_rows");
    const nCols = model.get("n_cols");
    d = {
      codes: new Int8Array(view.buffer, view.byteOffset, view.byteLength),
      nRows, nCols,
      tools: model.get("tools"),
      toolServer: model.get("tool_server"),
      toolGroups: model.get("tool_groups"),
      servers: model.get("servers"),
      groups: model.get("groups"),
      levels: model.get("levels"),
      columns: model.get("columns"),
      labels: model.get("labels"),
      effects: model.get("effects"),
      palette: model.get("palette"),
      marks: model.get("marks"),
      ranks: model.get("ranks"),
      granted: model.get("granted"),
    };
    d.colText = d.columns.map((c) => c.join(" · "));
    options(serverSel, ["any server", ...d.servers]);
    options(groupSel, ["any group", ...d.groups]);
    const effectNames = [...new Set(d.effects)];
    d.effectNames = effectNames;
    options(effectSel, ["any effect", ...effectNames.map((e) => `has ${e}`)]);
    // Sizes from the real glyphs of the theme's fonts, not a guessed width per character.
    const room = Math.max(280, 0.4 * (root.clientWidth || window.innerWidth || 1000));
    const toolW = Math.max(60, widest(d.tools, themeFont("--jp-code-font-family", "monospace")));
    d.rowHeadW = Math.ceil(Math.min(room, toolW + 14));
    d.headWidths = widths(d.columns.flat(), themeFont("--jp-ui-font-family", "sans-serif"));
    headHeights = d.levels.map((_, li) => {
      const longest = d.columns.reduce((m, c) => Math.max(m, d.headWidths.get(c[li])), 24);
      return Math.ceil(Math.min(260, longest + 12));
    });
    headSort = null;
    apply();
  }

  function compareNames(a, b) {
    return a < b ? -1 : a > b ? 1 : 0;
  }

  function apply() {
    if (!d) return;
    const { codes, nCols, granted } = d;
    const wantTool = matcher(toolBox.value);
    const wantCol = matcher(agentBox.value);
    const server = Number(serverSel.value || -1);
    const group = Number(groupSel.value || -1);
    const effectIdx = Number(effectSel.value || -1);
    const wantEffect = effectIdx >= 0 ? d.effectNames[effectIdx] : null;
    const colList = [];
    for (let c = 0; c < nCols; c++) {
      if (wantCol(d.colText[c])) colList.push(c);
    }
    const effectCodes = wantEffect === null ? null
      : new Set(d.effects.map((e, i) => (e === wantEffect ? i : -1)).filter((i) => i >= 0));
    const rowList = [];
    const score = new Int32Array(d.nRows);
    for (let r = 0; r < d.nRows; r++) {
      if (server >= 0 && d.toolServer[r] !== server) continue;
      if (group >= 0 && !d.toolGroups[r].includes(group)) continue;
      if (!wantTool(d.tools[r])) continue;
      const base = r * nCols;
      let hit = effectCodes === null;
      let n = 0;
      for (const c of colList) {
        const code = codes[base + c];
        if (granted[code]) n++;
        if (!hit && effectCodes.has(code)) hit = true;
      }
      if (!hit) continue;
      score[r] = n;
      rowList.push(r);
    }
    const { ranks, tools, colText } = d;
    if (headSort && headSort.axis === "rows") {
      // a column header's sort: the rows by their effect in that column, then by name
      const c = headSort.index;
      const dir = headSort.dir;
      rowList.sort((a, b) => dir * ((ranks[codes[a * nCols + c]] - ranks[codes[b * nCols + c]])
                                    || compareNames(tools[a], tools[b])));
    } else if (sortSel.value === "0") {
      rowList.sort((a, b) => score[b] - score[a] || a - b);
    } else if (sortSel.value === "1") {
      rowList.sort((a, b) => score[a] - score[b] || a - b);
    }
    if (headSort && headSort.axis === "columns") {
      // a row header's sort: the columns by their effect for that tool, then by name
      const base = headSort.index * nCols;
      const dir = headSort.dir;
      colList.sort((a, b) => dir * ((ranks[codes[base + a]] - ranks[codes[base + b]])
                                    || compareNames(colText[a], colText[b])));
    } else if (colSortSel.value !== "-1") {
      const colScore = new Map();
      for (const c of colList) {
        let n = 0;
        for (const r of rowList) if (granted[codes[r * nCols + c]]) n++;
        colScore.set(c, n);
      }
      const sign = colSortSel.value === "0" ? -1 : 1;
      colList.sort((a, b) => sign * (colScore.get(a) - colScore.get(b)) || a - b);
    }
    rows = Int32Array.from(rowList);
    cols = Int32Array.from(colList);
    active = [Math.min(active[0], Math.max(rows.length - 1, 0)),
              Math.min(active[1], Math.max(cols.length - 1, 0))];
    layout();
  }

  function layout() {
    const headH = headHeights.reduce((a, b) => a + b, 0);
    const w = d.rowHeadW;
    const bodyH = Math.min(rows.length * ROW_H + 16, 460);
    grid.style.gridTemplateColumns = `${w}px minmax(0, ${cols.length * COL_W + 16}px)`;
    grid.style.gridTemplateRows = `${headH}px ${Math.max(bodyH, 0)}px`;
    spacer.style.width = `${cols.length * COL_W}px`;
    spacer.style.height = `${rows.length * ROW_H}px`;
    colInner.style.height = `${headH}px`;
    colInner.style.width = `${cols.length * COL_W + 16}px`;
    rowInner.style.height = `${rows.length * ROW_H + 16}px`;
    grid.setAttribute("aria-rowcount", String(d.levels.length + rows.length));
    grid.setAttribute("aria-colcount", String(1 + cols.length));
    corner.replaceChildren();
    let top = 0;
    d.levels.forEach((level, li) => {
      const name = el("div", "tk-levelname", level);
      name.style.top = `${top + headHeights[li] - 16}px`;
      corner.appendChild(name);
      top += headHeights[li];
    });
    const nothing = rows.length === 0 ? "no rows: no tool matches the filters"
      : cols.length === 0 ? "no columns: no agent matches the filter" : "";
    empty.textContent = nothing;
    empty.style.display = nothing ? "block" : "none";
    grid.style.display = nothing ? "none" : "grid";
    info.textContent = `${rows.length} of ${d.nRows} tools × ${cols.length} of ${d.nCols} columns`;
    body.scrollTop = 0;
    body.scrollLeft = 0;
    paint();
  }

  function cellId(i, j) {
    return `${uid}-r${i}-c${j}`;
  }

  function paint() {
    frame = 0;
    if (!d || rows.length === 0 || cols.length === 0) {
      spacer.replaceChildren();
      painted = { r0: 0, r1: 0, c0: 0, c1: 0 };
      grid.removeAttribute("aria-activedescendant");
      return;
    }
    const { scrollTop, scrollLeft } = body;
    const height = body.clientHeight || 460;
    const width = body.clientWidth || 800;
    const r0 = Math.floor(scrollTop / ROW_H);
    const r1 = Math.min(rows.length, r0 + Math.ceil(height / ROW_H) + 1);
    const c0 = Math.floor(scrollLeft / COL_W);
    const c1 = Math.min(cols.length, c0 + Math.ceil(width / COL_W) + 1);
    const selected = model.get("selected");
    const nLevels = d.levels.length;
    const cells = document.createDocumentFragment();
    const labels = document.createDocumentFragment();
    for (let i = r0; i < r1; i++) {
      const r = rows[i];
      const label = el("div", "tk-rowlabel", d.tools[r]);
      label.title = `${d.tools[r]} (click: sort the columns by its effects)`;
      label.style.top = `${i * ROW_H}px`;
      label.style.width = `${d.rowHeadW}px`;
      label.dataset.row = String(r);
      if (headSort && headSort.axis === "columns" && headSort.index === r) {
        label.classList.add(headSort.dir > 0 ? "tk-sorted-asc" : "tk-sorted-desc");
      }
      labels.appendChild(label);
      const row = el("div", "tk-row");
      row.setAttribute("role", "row");
      row.setAttribute("aria-rowindex", String(nLevels + i + 1));
      row.style.top = `${i * ROW_H}px`;
      const head = el("span", "tk-sr", d.tools[r]);
      head.setAttribute("role", "rowheader");
      head.setAttribute("aria-colindex", "1");
      row.appendChild(head);
      const base = r * d.nCols;
      for (let j = c0; j < c1; j++) {
        const c = cols[j];
        const code = d.codes[base + c];
        const cell = el("div", "tk-cell", d.marks[code]);
        cell.setAttribute("role", "gridcell");
        cell.setAttribute("aria-colindex", String(j + 2));
        cell.style.left = `${j * COL_W}px`;
        cell.style.background = d.palette[code];
        cell.dataset.row = String(r);
        cell.dataset.col = String(c);
        cell.dataset.tool = d.tools[r];
        cell.dataset.effect = d.effects[code];
        cell.title = `${d.tools[r]} · ${d.colText[c]}: ${d.effects[code]} (${d.labels[code]})`;
        if (selected.length === 2 && selected[0] === r && selected[1] === c) {
          cell.classList.add("tk-selected");
          cell.setAttribute("aria-selected", "true");
        }
        row.appendChild(cell);
      }
      cells.appendChild(row);
    }
    spacer.replaceChildren(cells);
    painted = { r0, r1, c0, c1 };
    rowInner.replaceChildren(labels);
    rowInner.style.transform = `translateY(${-scrollTop}px)`;
    markActive();
    paintHeads(c0, c1);
    root.dataset.painted = String(performance.now());
  }

  // The column headers in view: one row per level. On the last level each column has its
  // label (a click sorts the rows by it); above it, a run of equal values is one label
  // centred over the run when it fits across, else every column of the run shows it.
  function paintHeads(c0, c1) {
    const heads = document.createDocumentFragment();
    const last = d.levels.length - 1;
    let top = 0;
    d.levels.forEach((_, li) => {
      const line = el("div", "tk-headrow");
      line.setAttribute("role", "row");
      line.setAttribute("aria-rowindex", String(li + 1));
      const prefix = (c) => d.columns[c].slice(0, li).join("\u0000");
      let j = c0;
      while (j < c1) {
        const value = d.columns[cols[j]][li];
        let k = j + 1;
        if (li < last) {
          while (k < c1 && d.columns[cols[k]][li] === value && prefix(cols[k]) === prefix(cols[j])) k++;
        }
        const span = (k - j) * COL_W;
        const fits = k - j > 1 && d.headWidths.get(value) + 10 <= span;
        const parts = fits || k - j === 1 ? [[j, k]] : [...Array(k - j).keys()].map((n) => [j + n, j + n + 1]);
        for (const [a, b] of parts) {
          const head = el("div", fits ? "tk-collabel tk-run" : "tk-collabel", value);
          head.title = value;
          head.setAttribute("role", "columnheader");
          head.setAttribute("aria-colindex", String(a + 2));
          if (b - a > 1) head.setAttribute("aria-colspan", String(b - a));
          head.style.left = `${a * COL_W}px`;
          head.style.top = `${top}px`;
          head.style.width = `${(b - a) * COL_W}px`;
          head.style.height = `${headHeights[li]}px`;
          if (fits) head.style.lineHeight = `${headHeights[li]}px`;
          if (li === last) {
            const c = cols[a];
            head.dataset.col = String(c);
            head.classList.add("tk-sortable");
            head.title = `${d.colText[c]} (click: sort the tools by their effect here)`;
            const sorted = headSort && headSort.axis === "rows" && headSort.index === c;
            head.setAttribute("aria-sort", sorted ? (headSort.dir > 0 ? "ascending" : "descending") : "none");
            if (sorted) head.classList.add(headSort.dir > 0 ? "tk-sorted-asc" : "tk-sorted-desc");
          }
          line.appendChild(head);
        }
        j = k;
      }
      heads.appendChild(line);
      top += headHeights[li];
    });
    colInner.replaceChildren(heads);
    colInner.style.transform = `translateX(${-body.scrollLeft}px)`;
  }

  // Mark the focused cell among the painted ones (no repaint); only it carries an id, for
  // aria-activedescendant.
  function markActive() {
    const previous = spacer.querySelector(".tk-active");
    if (previous) {
      previous.classList.remove("tk-active");
      previous.removeAttribute("id");
    }
    const [i, j] = active;
    const row = i >= painted.r0 && i < painted.r1 ? spacer.children[i - painted.r0] : null;
    // a row holds its rowheader, then the cells from painted.c0 on
    const cell = row && j >= painted.c0 && j < painted.c1 ? row.children[1 + j - painted.c0] : null;
    if (cell) {
      cell.id = cellId(i, j);
      cell.classList.add("tk-active");
      grid.setAttribute("aria-activedescendant", cell.id);
    } else {
      grid.removeAttribute("aria-activedescendant");
    }
  }

  function schedule() {
    if (!frame) frame = requestAnimationFrame(paint);
  }

  function explain(i, j) {
    model.set("selected", [rows[i], cols[j]]);
    model.save_changes();
    paint();
  }

  // Scroll so that the focused cell is in view, then paint at once (it must exist for
  // aria-activedescendant).
  function focusCell(i, j) {
    if (!rows.length || !cols.length) return;
    i = Math.max(0, Math.min(rows.length - 1, i));
    j = Math.max(0, Math.min(cols.length - 1, j));
    active = [i, j];
    const top = i * ROW_H;
    const left = j * COL_W;
    if (top < body.scrollTop) body.scrollTop = top;
    else if (top + ROW_H > body.scrollTop + body.clientHeight) body.scrollTop = top + ROW_H - body.clientHeight;
    if (left < body.scrollLeft) body.scrollLeft = left;
    else if (left + COL_W > body.scrollLeft + body.clientWidth) body.scrollLeft = left + COL_W - body.clientWidth;
    paint();
  }

  function sortBy(axis, index) {
    const again = headSort && headSort.axis === axis && headSort.index === index;
    headSort = { axis, index, dir: again ? -headSort.dir : 1 };
    apply();
  }

  function csv() {
    const lines = [["tool", ...Array.from(cols, (c) => d.colText[c])].map(csvField).join(",")];
    for (const r of rows) {
      const base = r * d.nCols;
      lines.push([d.tools[r], ...Array.from(cols, (c) => d.effects[d.codes[base + c]])]
        .map(csvField).join(","));
    }
    return lines.join("\r\n") + "\r\n";
  }

  function exported(what) {
    return `${what} ${rows.length} tool(s) × ${cols.length} column(s)`;
  }

  body.addEventListener("scroll", schedule, { passive: true });
  body.addEventListener("click", (event) => {
    const cell = event.target.closest(".tk-cell");
    if (!cell) return;
    const r = Number(cell.dataset.row);
    const c = Number(cell.dataset.col);
    active = [rows.indexOf(r), cols.indexOf(c)];
    model.set("selected", [r, c]);
    model.save_changes();
    paint();
  });
  colHead.addEventListener("click", (event) => {
    const head = event.target.closest(".tk-sortable");
    if (head) sortBy("rows", Number(head.dataset.col));
  });
  rowHead.addEventListener("click", (event) => {
    const label = event.target.closest(".tk-rowlabel");
    if (label) sortBy("columns", Number(label.dataset.row));
  });
  grid.addEventListener("keydown", (event) => {
    if (!d || !rows.length || !cols.length) return;
    const page = Math.max(1, Math.floor(body.clientHeight / ROW_H) - 1);
    const [i, j] = active;
    const moves = {
      ArrowUp: [i - 1, j], ArrowDown: [i + 1, j], ArrowLeft: [i, j - 1], ArrowRight: [i, j + 1],
      PageUp: [i - page, j], PageDown: [i + page, j],
      Home: event.ctrlKey ? [0, 0] : [i, 0],
      End: event.ctrlKey ? [rows.length - 1, cols.length - 1] : [i, cols.length - 1],
    };
    if (event.key in moves) {
      focusCell(...moves[event.key]);
    } else if (event.key === "Enter" || event.key === " ") {
      explain(i, j);
    } else if (event.key === "Tab" || event.key === "Escape") {
      return; // leave the grid (Escape: back to the notebook's command mode)
    }
    // Every other key is the grid's, never a notebook shortcut ("d d" deletes a cell).
    event.preventDefault();
    event.stopPropagation();
  });
  grid.addEventListener("focus", () => {
    // Focus never scrolls (a click that focuses the grid must hit the cell it aims at): a
    // focused cell out of view moves to the first cell in view.
    if (!d || !rows.length || !cols.length) return;
    const i0 = Math.floor(body.scrollTop / ROW_H);
    const j0 = Math.floor(body.scrollLeft / COL_W);
    const rowsInView = Math.max(1, Math.floor(body.clientHeight / ROW_H));
    const colsInView = Math.max(1, Math.floor(body.clientWidth / COL_W));
    if (active[0] < i0 || active[0] >= i0 + rowsInView) active[0] = i0;
    if (active[1] < j0 || active[1] >= j0 + colsInView) active[1] = j0;
    markActive(); // never a repaint here: the cell under a click must stay the same element
  });
  for (const control of [toolBox, agentBox]) {
    control.addEventListener("input", apply);
    // Keys typed here are text, not notebook shortcuts ("d d" must not delete the cell).
    control.addEventListener("keydown", (event) => event.stopPropagation());
  }
  for (const control of [serverSel, groupSel, effectSel, colSortSel]) {
    control.addEventListener("change", apply);
  }
  sortSel.addEventListener("change", () => {
    headSort = null; // the picked sort replaces a header's
    apply();
  });
  resetButton.addEventListener("click", () => {
    toolBox.value = "";
    agentBox.value = "";
    for (const s of [serverSel, groupSel, effectSel, sortSel, colSortSel]) s.value = "-1";
    headSort = null;
    active = [0, 0];
    status.textContent = "";
    apply();
  });
  csvButton.addEventListener("click", () => {
    if (!d) return;
    // A Blob link: the file is made in the browser, nothing goes to the kernel.
    const url = URL.createObjectURL(new Blob([csv()], { type: "text/csv" }));
    const link = el("a");
    link.href = url;
    link.download = "toolmatrix.csv";
    link.style.display = "none";
    root.appendChild(link);
    link.click();
    link.remove();
    setTimeout(() => URL.revokeObjectURL(url), 60_000);
    status.textContent = exported("downloaded toolmatrix.csv:");
  });
  copyButton.addEventListener("click", async () => {
    if (!d) return;
    const text = csv();
    try {
      if (!navigator.clipboard) throw new Error("no clipboard in this page (an http:// page?)");
      await navigator.clipboard.writeText(text);
      status.textContent = exported("copied as CSV:");
    } catch (error) {
      status.textContent = `the browser did not allow copying (${error.message || error}): `
        + "use the CSV button to download the same table";
    }
  });
  const onVersion = () => load();
  model.on("change:version", onVersion);
  model.on("change:selected", schedule);
  load();
  return () => {
    model.off("change:version", onVersion);
    model.off("change:selected", schedule);
    if (frame) cancelAnimationFrame(frame);
  };
}

export default { render };
