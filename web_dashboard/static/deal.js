// The deal viewer: one stage (tribute, a trick, the hands) at a time; previous /
// next buttons and the arrow keys step, the URL fragment names the stage
// (#trick-3), so a link opens that trick. Without this script (or in print)
// every stage shows.
(function () {
  "use strict";
  const stages = Array.from(document.querySelectorAll("section.stage"));
  if (!stages.length) return;
  const label = document.getElementById("step-label");
  const prev = document.getElementById("step-prev");
  const next = document.getElementById("step-next");
  const links = Array.from(document.querySelectorAll(".stage-index a"));
  let current = 0;

  function show(i, push) {
    current = Math.max(0, Math.min(stages.length - 1, i));
    stages.forEach((s, k) => s.classList.toggle("current", k === current));
    links.forEach((a) => a.classList.toggle("current", a.getAttribute("href") === "#" + stages[current].id));
    label.textContent = stages[current].dataset.label;
    prev.disabled = current === 0;
    next.disabled = current === stages.length - 1;
    if (push && location.hash !== "#" + stages[current].id) {
      history.replaceState(null, "", "#" + stages[current].id);
    }
  }

  function fromHash() {
    const id = decodeURIComponent(location.hash.slice(1));
    const i = stages.findIndex((s) => s.id === id);
    show(i >= 0 ? i : 0, false);
  }

  document.body.classList.add("stepping");
  prev.addEventListener("click", () => show(current - 1, true));
  next.addEventListener("click", () => show(current + 1, true));
  document.addEventListener("keydown", (ev) => {
    if (ev.target.closest && ev.target.closest("input, select, textarea")) return;
    if (ev.key === "ArrowLeft") { show(current - 1, true); ev.preventDefault(); }
    else if (ev.key === "ArrowRight") { show(current + 1, true); ev.preventDefault(); }
  });
  window.addEventListener("hashchange", fromHash);
  fromHash();
})();
