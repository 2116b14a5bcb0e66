// The seat this phone sits at. The QR code of a seat opens the page at #seat=TOKEN: the
// token moves to localStorage (so the phone keeps its seat across reloads) and out of
// the address bar. It goes to the server as a bearer header (REST) and ?seat= (the
// WebSocket, which takes no headers). Without a token the phone is a spectator.
"use strict";

(function () {
  const KEY = "aide.seat";
  const m = /(?:^#|&)seat=([0-9a-f]+)/.exec(location.hash);
  if (m) {
    localStorage.setItem(KEY, m[1]);
    history.replaceState(null, "", location.pathname + location.search);
  }
  const token = () => localStorage.getItem(KEY);
  /** `headers` with the seat's bearer token added. */
  const headers = (h) => {
    const t = token();
    return t ? { ...(h || {}), authorization: "Bearer " + t } : h || {};
  };

  const seat = {
    headers,
    /** The query the WebSocket address carries the token in. */
    wsQuery() {
      const t = token();
      return t ? "?seat=" + encodeURIComponent(t) : "";
    },
    /** Who the server takes this page for: {seat, side, seated}. A token the server does
     *  not know (a past game's) is dropped, and the page carries on as a spectator. */
    ready: (async () => {
      let r = await fetch("/api/seat", { headers: headers() });
      if (r.status === 403 && token()) {
        localStorage.removeItem(KEY);
        r = await fetch("/api/seat");
      }
      return r.json();
    })(),
  };
  window.aideSeat = seat;

  // The seat's name in the header; the umpire's QR dialog shows every seat's code.
  seat.ready.then(async (me) => {
    const badge = document.createElement("span");
    badge.id = "seatname";
    badge.textContent = me.seated ? me.seat : "open table";
    const bar = document.getElementById("status");
    if (bar) bar.insertBefore(badge, document.getElementById("share"));
    if (!me.seated || me.seat !== "umpire") return;
    const r = await fetch("/api/seats", { headers: headers() });
    if (!r.ok) return;
    const box = document.createElement("div");
    box.id = "seatcodes";
    for (const s of await r.json()) {
      const fig = document.createElement("figure");
      const img = document.createElement("img");
      img.src = URL.createObjectURL(new Blob([s.qr_svg], { type: "image/svg+xml" }));
      img.alt = "QR code of the " + s.label + " seat";
      img.width = 160;
      img.height = 160;
      const cap = document.createElement("figcaption");
      cap.textContent = s.label;
      cap.dataset.seat = s.seat;
      fig.append(img, cap);
      box.append(fig);
    }
    const dialog = document.getElementById("qr");
    if (dialog) dialog.insertBefore(box, dialog.querySelector("form"));
  });
})();
