// A view's guard: once the kernel behind the view is gone (Kernel > Restart, a dead
// kernel), say so above the view and disable what acts on it, so a click never shows
// stale data. It watches its own model's comm (ipywidgets sets comm_live to false when
// the kernel restarts or dies).
const NOTE = "Kernel restarted: this view is no longer connected to it. " +
  "Re-run the cell to use it again.";
const CSS = ".toolkit-dead > :not(.toolkit-dead-note){pointer-events:none;opacity:.5}" +
  ".toolkit-dead-note{color:var(--jp-warn-color0,#9a6700);font-weight:600;margin:4px 0}";

function styleOnce() {
  if (document.getElementById("toolkit-guard-css")) return;
  const style = document.createElement("style");
  style.id = "toolkit-guard-css";
  style.textContent = CSS;
  document.head.appendChild(style);
}

function markDead(el) {
  const root = el.closest(".toolkit-live");
  if (!root || root.classList.contains("toolkit-dead")) return;
  styleOnce();
  root.classList.add("toolkit-dead");
  const note = document.createElement("div");
  note.className = "toolkit-dead-note";
  note.setAttribute("role", "status");
  note.textContent = NOTE;
  root.prepend(note);
  root.querySelectorAll("button, input, select, textarea").forEach((x) => { x.disabled = true; });
}

export default {
  async render({ model, el }) {
    el.style.display = "none";
    const id = model.get("self_id");
    let real = null;
    try {
      real = await model.widget_manager.get_model(id);
    } catch (e) {
      return; // not in a live widget manager (a saved page): nothing to guard
    }
    const check = () => { if (real && real.comm_live === false) markDead(el); };
    real.on("comm_live_update", check);
    check();
    return () => real.off("comm_live_update", check);
  },
};
