// The matrix grid of toolkit's MatrixExplorer: an anywidget ES module, no dependencies.
//
// The kernel sends the cells as one int8 buffer (one byte per cell: an index into
// `labels`, `effects`, `palette` and `marks`) and the names as arrays. Only the cells in
// view are in the DOM (virtual scrolling in both directions), so 200 agents x 5,000 tools
// paint as fast as 20 x 50. Headers stay in place while the body scrolls. Every name is
// data from the project or a server: it is only ever set as textContent or an attribute,
// never as HTML.

const ROW_H = 22;
const COL_W = 26;
const CHAR_W = 6.6;

const CSS = `
.tk-grid-root { font: 12px/1.3 var(--jp-ui-font-family, sans-serif); color: var(--jp-ui-font-color1, #1f2328); }
.tk-bar { display: flex; flex-wrap: wrap; gap: 6px; align-items: center; margin: 4px 0; }
.tk-bar input, .tk-bar select { font: inherit; padding: 2px 4px; }
.tk-bar input { width: 13em; }
.tk-info { color: var(--jp-ui-font-color2, #59636e); margin-left: 4px; }
.tk-grid { display: grid; border: 1px solid #d0d7de; max-width: 100%; }
.tk-corner, .tk-colhead, .tk-rowhead { background: var(--jp-layout-color2, #f6f8fa); overflow: hidden; position: relative; }
.tk-corner { border-right: 1px solid #d0d7de; border-bottom: 1px solid #d0d7de; }
.tk-colhead { border-bottom: 1px solid #d0d7de; }
.tk-rowhead { border-right: 1px solid #d0d7de; }
.tk-body { overflow: auto; position: relative; }
.tk-spacer, .tk-colhead-inner, .tk-rowhead-inner { position: relative; }
.tk-cell, .tk-rowlabel, .tk-collabel, .tk-levelname { position: absolute; box-sizing: border-box; white-space: nowrap; overflow: hidden; text-overflow: ellipsis; }
.tk-cell { width: ${COL_W - 1}px; height: ${ROW_H - 1}px; color: #fff; text-align: center; line-height: ${ROW_H - 1}px; cursor: pointer; font-size: 11px; }
.tk-cell:hover { outline: 2px solid #1f2328; z-index: 1; }
.tk-cell.tk-selected { outline: 3px solid #fb8500; z-index: 2; }
.tk-rowlabel { height: ${ROW_H}px; line-height: ${ROW_H}px; padding: 0 6px; font-family: var(--jp-code-font-family, monospace); }
.tk-collabel { writing-mode: vertical-rl; transform: rotate(180deg); padding: 4px 2px; text-align: left; border-left: 1px solid #e1e4e8; }
.tk-levelname { right: 6px; color: var(--jp-ui-font-color2, #59636e); font-style: italic; }
.tk-empty { padding: 1em; color: var(--jp-ui-font-color2, #59636e); font-size: 13px; }
`;

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

// A tools filter: a glob when it has * or ?, else a case-insensitive substring.
function matcher(text) {
  const t = text.trim().toLowerCase();
  if (!t) return () => true;
  if (/[*?]/.test(t)) {
    const body = t.replace(/[.+^${}()|[\]\\]/g, "\\$&").replace(/\*/g, ".*").replace(/\?/g, ".");
    const re = new RegExp(`^${body}$`);
    return (name) => re.test(name.toLowerCase());
  }
  return (name) => name.toLowerCase().includes(t);
}

function render({ model, el: root }) {
  root.dataset.rendered = String(performance.now());
  root.classList.add("tk-grid-root", "toolkit-matrix-grid");
  root.dataset.lmSuppressShortcuts = "true";
  root.appendChild(el("style", "", CSS));
  const bar = el("div", "tk-bar");
  const toolBox = el("input", "tk-filter-tools");
  toolBox.placeholder = "tools: name or glob (svc0*_read_*)";
  const agentBox = el("input", "tk-filter-columns");
  agentBox.placeholder = "columns: agent, group, state…";
  const serverSel = el("select", "tk-filter-server");
  const groupSel = el("select", "tk-filter-group");
  const effectSel = el("select", "tk-filter-effect");
  const sortSel = el("select", "tk-sort");
  options(sortSel, ["tools A→Z", "most agents first", "fewest agents first"]);
  const colSortSel = el("select", "tk-sort-columns");
  options(colSortSel, ["columns as given", "most tools first", "fewest tools first"]);
  const info = el("span", "tk-info");
  bar.append(toolBox, agentBox, serverSel, groupSel, effectSel, sortSel, colSortSel, info);
  const grid = el("div", "tk-grid");
  const corner = el("div", "tk-corner");
  const colHead = el("div", "tk-colhead");
  const colInner = el("div", "tk-colhead-inner");
  const rowHead = el("div", "tk-rowhead");
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
      granted: model.get("granted"),
    };
    d.colText = d.columns.map((c) => c.join(" · "));
    options(serverSel, ["any server", ...d.servers]);
    options(groupSel, ["any group", ...d.groups]);
    const effectNames = [...new Set(d.effects)];
    d.effectNames = effectNames;
    options(effectSel, ["any effect", ...effectNames.map((e) => `has ${e}`)]);
    headHeights = d.levels.map((_, li) => {
      const longest = d.columns.reduce((m, c) => Math.max(m, c[li].length), 4);
      return Math.min(170, Math.ceil(longest * CHAR_W) + 10);
    });
    const longestTool = d.tools.reduce((m, t) => Math.max(m, t.length), 8);
    d.rowHeadW = Math.min(280, Math.ceil(longestTool * CHAR_W) + 14);
    apply();
  }

  function apply() {
    if (!d) return;
    const { codes, nCols, granted } = d;
    const wantTool = matcher(toolBox.value);
    const wantCol = agentBox.value.trim().toLowerCase();
    const server = Number(serverSel.value || -1);
    const group = Number(groupSel.value || -1);
    const effectIdx = Number(effectSel.value || -1);
    const wantEffect = effectIdx >= 0 ? d.effectNames[effectIdx] : null;
    const colList = [];
    for (let c = 0; c < nCols; c++) {
      if (!wantCol || d.colText[c].toLowerCase().includes(wantCol)) colList.push(c);
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
    if (sortSel.value === "0") rowList.sort((a, b) => score[b] - score[a] || a - b);
    if (sortSel.value === "1") rowList.sort((a, b) => score[a] - score[b] || a - b);
    if (colSortSel.value !== "-1") {
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

  function paint() {
    frame = 0;
    if (!d || rows.length === 0 || cols.length === 0) {
      spacer.replaceChildren();
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
    const cells = document.createDocumentFragment();
    const labels = document.createDocumentFragment();
    for (let i = r0; i < r1; i++) {
      const r = rows[i];
      const label = el("div", "tk-rowlabel", d.tools[r]);
      label.title = d.tools[r];
      label.style.top = `${i * ROW_H}px`;
      label.style.width = `${d.rowHeadW}px`;
      labels.appendChild(label);
      const base = r * d.nCols;
      for (let j = c0; j < c1; j++) {
        const c = cols[j];
        const code = d.codes[base + c];
        const cell = el("div", "tk-cell", d.marks[code]);
        cell.style.top = `${i * ROW_H}px`;
        cell.style.left = `${j * COL_W}px`;
        cell.style.background = d.palette[code];
        cell.dataset.row = String(r);
        cell.dataset.col = String(c);
        cell.dataset.tool = d.tools[r];
        cell.dataset.effect = d.effects[code];
        cell.title = `${d.tools[r]} · ${d.colText[c]}: ${d.effects[code]} (${d.labels[code]})`;
        if (selected.length === 2 && selected[0] === r && selected[1] === c) {
          cell.classList.add("tk-selected");
        }
        cells.appendChild(cell);
      }
    }
    spacer.replaceChildren(cells);
    rowInner.replaceChildren(labels);
    rowInner.style.transform = `translateY(${-scrollTop}px)`;
    const heads = document.createDocumentFragment();
    let top = 0;
    d.levels.forEach((_, li) => {
      let j = c0;
      while (j < c1) {
        const value = d.columns[cols[j]][li];
        let k = j + 1;
        // merge a run of equal values, except on the last level (one label per column)
        if (li < d.levels.length - 1) {
          while (k < c1 && d.columns[cols[k]][li] === value
                 && d.columns[cols[k]].slice(0, li).join("\u0000")
                    === d.columns[cols[j]].slice(0, li).join("\u0000")) k++;
        }
        const head = el("div", "tk-collabel", value);
        head.title = value;
        head.style.left = `${j * COL_W}px`;
        head.style.top = `${top}px`;
        head.style.width = `${(k - j) * COL_W}px`;
        head.style.height = `${headHeights[li]}px`;
        heads.appendChild(head);
        j = k;
      }
      top += headHeights[li];
    });
    colInner.replaceChildren(heads);
    colInner.style.transform = `translateX(${-scrollLeft}px)`;
    root.dataset.painted = String(performance.now());
  }

  function schedule() {
    if (!frame) frame = requestAnimationFrame(paint);
  }

  body.addEventListener("scroll", schedule, { passive: true });
  body.addEventListener("click", (event) => {
    const cell = event.target.closest(".tk-cell");
    if (!cell) return;
    model.set("selected", [Number(cell.dataset.row), Number(cell.dataset.col)]);
    model.save_changes();
    paint();
  });
  for (const control of [toolBox, agentBox]) {
    control.addEventListener("input", apply);
    // Keys typed here are text, not notebook shortcuts ("d d" must not delete the cell).
    control.addEventListener("keydown", (event) => event.stopPropagation());
  }
  for (const control of [serverSel, groupSel, effectSel, sortSel, colSortSel]) {
    control.addEventListener("change", apply);
  }
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
