// Live pages of the referee dashboard. Every server-sent 'state' message holds
// the page's whole state, so rendering is a pure function of the last message.
(function () {
  "use strict";
  const T = (k) => (window.I18N && window.I18N[k]) || k;
  const SUITS = { S: "♠", H: "♥", D: "♦", C: "♣" };
  const RANKS = { T: "10" };

  function el(tag, cls, text) {
    const e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined && text !== null) e.textContent = text;
    return e;
  }

  function cardEl(code) {
    if (code === "BJ" || code === "LJ") {
      const c = el("span", "card joker " + (code === "BJ" ? "red" : "black"), code === "BJ" ? "大王" : "小王");
      c.dataset.card = code;
      return c;
    }
    const suit = code[0], rank = code.slice(1);
    const c = el("span", "card " + (suit === "H" || suit === "D" ? "red" : "black"),
                 SUITS[suit] + (RANKS[rank] || rank));
    c.dataset.card = code;
    return c;
  }

  function cardsEl(cards) {
    const wrap = el("span", "cards");
    (cards || []).forEach((c) => wrap.appendChild(cardEl(c)));
    return wrap;
  }

  // A decision's message in the viewer's language: the template (catalogue key)
  // filled with its typed values; {name@prefix} is the catalogue's text for
  // prefix + value (web_dashboard/messages.py does the same on the server).
  function fmt(msg) {
    if (!msg || !msg.key) return "";
    const values = msg.values || {};
    return T(msg.key).replace(/\{(\w+)(?:@(\w*))?\}/g, (_, name, prefix) => {
      const v = values[name] === undefined || values[name] === null ? "" : String(values[name]);
      return prefix === undefined ? v : T(prefix + v);
    });
  }

  // Evidence crops enlarge on click: one overlay for the page (Escape, a click
  // or the close button shut it). No inline script: the CSP forbids it.
  function lightbox() {
    let box = document.getElementById("lightbox");
    if (box) return box;
    box = el("div", "lightbox");
    box.id = "lightbox";
    box.hidden = true;
    const img = el("img", "lightbox-img");
    const close = el("button", "lightbox-close", T("lightbox_close"));
    close.type = "button";
    box.append(img, close);
    box.addEventListener("click", () => { box.hidden = true; });
    document.addEventListener("keydown", (ev) => { if (ev.key === "Escape") box.hidden = true; });
    document.body.appendChild(box);
    return box;
  }

  function openCrop(src, alt) {
    const box = lightbox();
    const img = box.querySelector("img");
    img.src = src; img.alt = alt;
    box.hidden = false;
    box.querySelector("button").focus();
  }

  function connect(url, onState) {
    const flag = document.getElementById("live-flag");
    const src = new EventSource(url);
    src.addEventListener("state", (ev) => {
      if (flag) { flag.textContent = T("live"); flag.classList.remove("down"); }
      onState(JSON.parse(ev.data));
    });
    src.onerror = () => { if (flag) { flag.textContent = T("reconnecting"); flag.classList.add("down"); } };
    return src;
  }

  function fmtClock(seconds) {
    const s = Math.max(0, Math.ceil(seconds));
    return Math.floor(s / 60) + ":" + String(s % 60).padStart(2, "0");
  }

  // ---------------------------------------------------------------- table view
  function renderTrick(state, prefix) {
    ["S", "E", "N", "W"].forEach((seat) => {
      const box = document.getElementById(prefix + seat);
      if (!box) return;
      box.replaceChildren();
      const plays = (state.trick || []).filter((p) => p.seat === seat);
      const last = plays[plays.length - 1];
      if (last && last.pass) box.appendChild(el("span", "pass", T("pass")));
      else if (last) box.appendChild(cardsEl(last.cards));
      box.parentElement.classList.toggle("to-act", state.turn === seat);
    });
  }

  function tablePage(streamUrl, actionUrl, initial, penalties) {
    let state = initial, offset = 0;
    const csrf = document.querySelector('meta[name="csrf-token"]').content;

    async function post(fields) {
      const body = new URLSearchParams(fields);
      const r = await fetch(actionUrl, { method: "POST", body, credentials: "same-origin",
        headers: { "X-CSRFToken": csrf, "Accept": "application/json" } });
      const out = await r.json().catch(() => ({ error: r.statusText }));
      document.getElementById("action-error").textContent = r.ok ? "" : (out.error || r.statusText);
      return r.ok;
    }

    document.querySelectorAll("form[data-action]").forEach((f) => f.addEventListener("submit", (ev) => {
      ev.preventDefault();
      post(Object.fromEntries(new FormData(f).entries())).then((ok) => { if (ok) f.reset(); });
    }));

    function button(label, fields, cls) {
      const b = el("button", cls, label);
      b.type = "button";
      b.addEventListener("click", () => post(fields));
      return b;
    }

    // a ruling's clips: one <video> per clip kept across re-renders (the feed is
    // rebuilt on every change; a clip being watched must not restart)
    const videos = new Map();
    const counting = new Map();     // a held report's request n -> the count being typed
    function clipsEl(urls) {
      const box = el("div", "clips");
      box.appendChild(el("span", "clip-label", T("clip")));
      urls.forEach((url) => {
        let v = videos.get(url);
        if (!v) {
          v = el("video", "clip");
          v.controls = true; v.preload = "metadata"; v.muted = true; v.src = url;
          v.title = T("clip");
          videos.set(url, v);
        }
        box.appendChild(v);
      });
      return box;
    }

    function feedItem(d) {
      const li = el("li", "item " + d.type + " " + (d.status || ""));
      li.dataset.n = d.n;
      li.dataset.code = d.code || "";
      const head = el("div", "head");
      head.appendChild(el("span", "t", fmtClock(d.t)));
      if (d.seat) head.appendChild(el("b", "who", d.seat));
      if (d.penalty) head.appendChild(el("span", "penalty " + d.penalty, T(d.penalty)));
      if (d.code) {
        const code = el("code", null, T("code_" + d.code) + (d.clause ? " " + d.clause : ""));
        code.dataset.code = d.code;
        head.appendChild(code);
      }
      if (d.status) head.appendChild(el("span", "status", T("st_" + d.status)));
      li.appendChild(head);
      // the record's English message only if a decision came without a template
      li.appendChild(el("div", "message", d.msg ? fmt(d.msg) : (d.message || "")));
      const ev = el("div", "evidence");
      (d.evidence || []).forEach((e) => {
        const line = el("div", "ev", "#" + e.id + " " + T("ev_" + e.type) + " " + (e.seat || "") + " ");
        line.dataset.type = e.type;
        if (e.cards) line.appendChild(cardsEl(e.cards));
        if (e.card) line.appendChild(cardsEl([e.card]));     // a tribute or return
        if (e.count !== undefined) line.appendChild(el("span", null, " " + e.count));
        if (e.source) line.appendChild(el("small", null, " " + T("src_" + e.source) + (e.confidence ? " " + e.confidence.toFixed(2) : "")));
        if (e.crop) {
          const img = el("img", "crop");
          img.src = e.crop; img.alt = T("frame_crop") + " #" + e.id; img.tabIndex = 0;
          img.addEventListener("click", () => openCrop(img.src, img.alt));
          img.addEventListener("keydown", (k) => { if (k.key === "Enter") openCrop(img.src, img.alt); });
          line.appendChild(img);
        }
        ev.appendChild(line);
      });
      li.appendChild(ev);
      if (d.clips && d.clips.length) li.appendChild(clipsEl(d.clips));
      if (d.appeal) {
        const a = el("a", "appeal", T("appeal_bundle") + " #" + d.n);   // n: for guandan-ref appeal
        a.href = d.appeal;
        a.setAttribute("download", "");
        li.appendChild(a);
      }
      if ((d.type === "violation" || d.type === "confirm_request") && d.status === "open") {
        const ref = (d.events || [])[d.events.length - 1];
        const acts = el("div", "acts");
        if (d.code === "stop_choice") {
          acts.appendChild(button(T("stop_next_play"), { action: "choice", seat: d.offender, choice: "stop_next_play" }, "choice-stop"));
          acts.appendChild(button(T("waive"), { action: "choice", seat: d.offender, choice: "waive" }, "choice-waive"));
          li.appendChild(acts);
          return li;
        }
        if (d.code === "camera_count" || d.code === "held_violation") {
          // the reads it rests on, each to confirm where the referee has looked (a seat already out
          // has no hand to count: this is the only way there)
          (d.reads || []).forEach((r) => acts.appendChild(button(T("confirm") + " #" + r, { action: "confirm", ref: r }, "confirm-read")));
        }
        if (d.code === "camera_count" && !d.went_out) {
          // a report fault on the camera's count, or an act before a seat that may be out: the referee
          // counts the seat's cards and enters the number (0: it is out)
          const n = el("input", "count-hand");
          n.type = "number"; n.min = "0"; n.max = "27";
          // the hand is counted as it is now: the box starts at what the reads leave now; the feed is
          // rebuilt on every change, and a number being typed is kept (by the request's n)
          // (a deal the reads left unfinished: its count, not the next deal's)
          const now = d.deal_unfinished ? undefined : (state.counts || {})[d.seat];
          n.value = counting.has(d.n) ? counting.get(d.n) : (now !== undefined ? now : (d.counted || ""));
          n.addEventListener("input", () => counting.set(d.n, n.value));
          n.setAttribute("aria-label", T("cards_counted") + " " + d.seat);
          acts.appendChild(n);
          const c = el("button", "count", T("count_hand"));
          c.type = "button";
          c.addEventListener("click", () => post({ action: "count", ref, seat: d.seat, count: n.value }));
          acts.appendChild(c);
        }
        // an unread play has no cards to confirm: the referee corrects it with the cards laid, or voids it;
        // a report held on the camera's count is settled by counting, and a violation held while a read
        // awaits its answer by answering that read (confirming this entry's own event says nothing)
        const unread = d.type === "confirm_request" && (d.evidence || []).some((e) => e.doubt === "unread");
        const answeredElsewhere = d.code === "camera_count" || d.code === "held_violation";
        if (!unread && !answeredElsewhere) acts.appendChild(button(T("confirm"), { action: "confirm", ref }, "confirm"));
        acts.appendChild(button(T("void"), { action: "void", ref, what: d.type === "violation" ? "penalty" : "event" }, "void"));
        if (d.type === "violation" && d.seat) {
          const sel = el("select", "new-penalty");
          penalties.forEach((p) => { const o = el("option", null, T(p)); o.value = p; sel.appendChild(o); });
          acts.appendChild(sel);
          const ch = el("button", "change", T("change_penalty"));
          ch.type = "button";
          ch.addEventListener("click", () => post({ action: "change_penalty", ref, seat: d.seat, code: d.code || "manual", penalty: sel.value }));
          acts.appendChild(ch);
        }
        li.appendChild(acts);
      }
      return li;
    }

    function render(s) {
      state = s;
      document.body.dataset.version = s.version;
      offset = s.now - Date.now() / 1000;
      const set = (id, v) => { const e = document.getElementById(id); if (e) e.textContent = v; };
      set("deal", s.deal || "—"); set("level", s.level || "—");
      set("level-NS", s.levels.NS || ""); set("level-EW", s.levels.EW || "");
      set("team-NS", (s.teams || {}).NS || ""); set("team-EW", (s.teams || {}).EW || "");
      set("phase", T("phase_" + s.phase)); set("turn", s.turn || "—");
      set("open-count", s.open);
      ["S", "E", "N", "W"].forEach((seat) => {
        set("count-" + seat, s.counts[seat] !== undefined ? s.counts[seat] : "");
        set("report-" + seat, s.reports_due[seat] !== undefined ? T("reports") + " " + s.reports_due[seat] : "");
      });
      renderTrick(s, "play-");
      set("order", (s.order || []).join(" → "));
      const feed = document.getElementById("feed");
      feed.replaceChildren(...s.feed.slice().reverse().map(feedItem));
      const ladder = document.getElementById("ladder");
      ladder.replaceChildren();
      Object.entries(s.ladder || {}).forEach(([side, c]) => {
        const tr = el("tr");
        tr.appendChild(el("th", null, T(side)));
        ["warning", "infraction", "foul"].forEach((p) => tr.appendChild(el("td", "ladder-" + p, T(p) + " " + (c[p] || 0))));
        ladder.appendChild(tr);
      });
      set("offline", (s.offline || []).join(", ") || "—");
      tickClock();
    }

    function tickClock() {
      const c = state.clock, box = document.getElementById("clock");
      if (!c) { box.textContent = "—"; box.className = ""; return; }
      const now = Date.now() / 1000 + offset;
      if (now <= c.deadline) { box.textContent = c.seat + " " + fmtClock(c.deadline - now); box.className = ""; }
      else { box.textContent = c.seat + " " + T("countdown") + " " + fmtClock(c.countdown_end - now); box.className = "counting"; }
    }

    render(initial);
    setInterval(tickClock, 250);
    connect(streamUrl, render);
  }

  // ------------------------------------------------------------------ overview
  function overviewPage(streamUrl, tableUrl, sheetUrl, overlayUrl) {
    connect(streamUrl, (rows) => {
      const body = document.querySelector("#overview tbody");
      body.replaceChildren(...rows.map((r) => {
        const tr = el("tr"); tr.dataset.table = r.table;
        const a = el("a", null, r.table); a.href = tableUrl.replace("__T__", encodeURIComponent(r.table));
        const td = el("td"); td.appendChild(a); tr.appendChild(td);
        tr.appendChild(el("td", "phase", T("phase_" + r.phase)));
        tr.appendChild(el("td", "deal", r.deal || ""));
        const team = (side) => ((r.teams || {})[side] ? r.teams[side] + " " : "");
        tr.appendChild(el("td", "levels", T("NS") + " " + team("NS") + r.levels.NS + " · " + T("EW") + " " + team("EW") + r.levels.EW));
        tr.appendChild(el("td", "turn", r.turn || ""));
        tr.appendChild(el("td", "open" + (r.open ? " alert" : ""), r.open));
        tr.appendChild(el("td", "offline", (r.offline || []).join(", ")));
        tr.appendChild(el("td", "clock", fmtClock(r.match_clock)));
        const links = el("td");
        [[sheetUrl, "score_sheet"], [overlayUrl, "overlay"]].forEach(([url, key]) => {
          const l = el("a", null, T(key) + " ");
          l.href = url.replace("__T__", encodeURIComponent(r.table));
          links.appendChild(l);
        });
        tr.appendChild(links);
        return tr;
      }));
    });
  }

  window.GD = { tablePage, overviewPage, cardEl, fmt };

  // The pages hold their data in <script type="application/json"> blocks
  // (the Content-Security-Policy allows no inline script): read it and start.
  function data(id) {
    const node = document.getElementById(id);
    return node ? JSON.parse(node.textContent) : null;
  }
  window.I18N = data("i18n") || {};
  const page = data("page-data");
  if (page && Object.prototype.hasOwnProperty.call(window.GD, page.page)) window.GD[page.page](...page.args);
})();
