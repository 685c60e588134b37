// The broadcast overlay (docs/overlay.md). Every server-sent 'state' message
// holds the overlay's whole state (web_dashboard/overlay.py: overlay_view), so
// rendering is a pure function of the last message; between messages only the
// clock and the ruling banner's end are worked out from the table time.
(function () {
  "use strict";
  function data(id) {
    const node = document.getElementById(id);
    return node ? JSON.parse(node.textContent) : {};
  }
  const I18N = data("i18n");
  const cfg = data("overlay-data");
  const show = new Set(cfg.show || []);
  const T = (k, vars) => {
    let s = I18N[k] || k;
    Object.entries(vars || {}).forEach(([name, v]) => { s = s.replace("{" + name + "}", v); });
    return s;
  };
  const SUITS = { S: "♠", H: "♥", D: "♦", C: "♣" };
  const SEATS = ["S", "E", "N", "W"];
  const rankLabel = (r) => (r === "T" ? "10" : r);

  function el(tag, cls, text) {
    const e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined && text !== null) e.textContent = text;
    return e;
  }
  function $(id) { return document.getElementById(id); }
  function setText(id, text) { const e = $(id); if (e) e.textContent = text; }

  // A card drawn with HTML and CSS: rank and suit in the corner, the suit big
  // in the middle; a joker has JOKER down its side and a star.
  // ``wild``: the heart of the level played (逢人配) is marked
  function cardEl(code, wild) {
    const joker = code === "BJ" || code === "LJ";
    const red = code === "BJ" || code[0] === "H" || code[0] === "D";
    const c = el("span", "ov-card " + (red ? "red" : "black") + (joker ? " joker" : "") + (code === wild ? " wild" : ""));
    c.dataset.card = code;
    if (joker) {
      c.title = T(code === "BJ" ? "ov_big_joker" : "ov_little_joker");
      c.appendChild(el("span", "ov-rank ov-joker-word", "JOKER"));
      c.appendChild(el("span", "ov-pip", "★"));
    } else {
      const corner = el("span", "ov-rank", rankLabel(code.slice(1)));
      corner.appendChild(el("span", "ov-suit", SUITS[code[0]]));
      c.appendChild(corner);
      c.appendChild(el("span", "ov-pip", SUITS[code[0]]));
    }
    return c;
  }

  function fmtClock(seconds) {
    const s = Math.max(0, Math.ceil(seconds));
    return Math.floor(s / 60) + ":" + String(s % 60).padStart(2, "0");
  }

  let state = null, offset = 0;
  // table time now: the message's time, moved on by the local clock since it came
  const tableNow = () => Date.now() / 1000 + offset;

  function render(s) {
    state = s;
    offset = s.now - Date.now() / 1000;
    document.body.dataset.version = s.version;
    document.body.dataset.phase = s.phase;
    ["NS", "EW"].forEach((side) => {
      setText("ov-team-" + side, (s.teams || {})[side] || T(side));
      setText("ov-level-" + side, (s.levels || {})[side] || "");
    });
    setText("ov-deal", s.deal ? T("ov_deal", { n: s.deal }) + (s.level ? " · " + T("ov_playing", { n: rankLabel(s.level) }) : "") : "");
    const wild = s.level ? "H" + (s.level === "10" ? "T" : s.level) : null;
    SEATS.forEach((seat) => {
      const info = (s.seats || {})[seat] || {};
      setText("ov-player-" + seat, (s.players || {})[seat] || "");
      const left = $("ov-left-" + seat);
      left.textContent = info.place ? T("ov_place_" + info.place)
        : (info.reported !== null && info.reported !== undefined ? T("ov_left", { n: info.reported }) : "");
      left.classList.toggle("out", !!info.place);
      const play = $("ov-play-" + seat);
      play.replaceChildren();
      if (info.last && info.last.pass) play.appendChild(el("span", "ov-pass", T("pass")));
      else if (info.last) (info.last.cards || []).forEach((c) => play.appendChild(cardEl(c, wild)));
      // in tribute and return the clock names who is to act
      $("ov-seat-" + seat).classList.toggle("to-act", (s.turn || (s.clock && s.clock.seat)) === seat);
    });
    const result = $("ov-result");
    if (s.result && show.has("result")) {
      const r = s.result;
      result.replaceChildren(el("span", "ov-result-head", T("phase_match_over")),
        el("span", "ov-result-winner", r.winner ? T("ov_winner", { team: r.team || T(r.winner) }) : T("ov_draw")),
        el("span", "ov-result-levels", ["NS", "EW"].map((side) =>
          ((s.teams || {})[side] || T(side)) + " " + ((r.levels || {})[side] || "")).join(" · ")));
      result.hidden = false;
    } else result.hidden = true;
    tick();
  }

  // the clock and the ruling banner's end: table time moves between messages
  function tick() {
    if (!state) return;
    const now = tableNow(), c = state.clock, turn = $("ov-turn");
    if (c && c.seat) {
      const counting = now > c.deadline;
      turn.textContent = T("seat_" + c.seat) + " " + (counting ? T("countdown") + " " + fmtClock(c.countdown_end - now)
        : fmtClock(c.deadline - now));
      turn.classList.toggle("counting", counting);
      turn.dataset.seat = c.seat;
    } else {   // no clock running (or none kept): whose turn alone
      turn.textContent = state.turn ? T("seat_" + state.turn) : "";
      turn.classList.remove("counting");
      if (state.turn) turn.dataset.seat = state.turn; else delete turn.dataset.seat;
    }
    const r = state.ruling, banner = $("ov-ruling");
    const on = !!r && show.has("ruling") && now < r.until;
    if (on && banner.dataset.n !== String(r.n)) {
      banner.dataset.n = r.n;
      const who = r.seat ? T("seat_" + r.seat) : "";
      const team = r.team || (r.side ? T(r.side) : "");
      banner.replaceChildren(el("span", "ov-banner-head", T("ov_ruling")),
        el("span", "ov-banner-who", [team, who].filter(Boolean).join(" · ")),
        el("span", "ov-banner-rule", r.term ? r.term + (r.clause ? " §" + r.clause : "") : (r.code || "")),
        el("span", "ov-banner-penalty penalty-" + r.penalty, T(r.penalty)));
    }
    if (!on) delete banner.dataset.n;
    banner.hidden = !on;
  }

  const scale = Number(cfg.scale) || 1;
  document.documentElement.style.setProperty("--ov-scale", String(scale));
  const src = new EventSource(cfg.stream);
  src.addEventListener("open", () => { document.body.dataset.connected = "1"; });
  src.addEventListener("state", (ev) => render(JSON.parse(ev.data)));
  src.onerror = () => { delete document.body.dataset.connected; };
  setInterval(tick, 250);
})();
