"""The page's only style sheet and script, inline, and the Content-Security-Policy that
admits exactly these two blocks by their hashes and nothing else: no request leaves the page.

The script filters: on each input it toggles ``hidden`` on the cards whose state changes, by
data attributes written when the page was made (tasks, status) and the text of each card
read once; the browser then restyles once per frame. On a big page cards off screen are not
laid out (``content-visibility``), so a 10,000-card page filters about as fast as the browser can
hide the cards at all (``bench/bench_view.py``).
"""

from __future__ import annotations

import base64
import hashlib

CSS = """
:root{color-scheme:light dark;--bg:#f5f6f8;--card:#fff;--fg:#1b2130;--muted:#596276;--line:#dde1e8;
--soft:#eef1f5;--accent:#2f54d1;--ok:#17734a;--bad:#b42318;--warn:#8a5a00;--info:#0b62b8;
--mono:ui-monospace,SFMono-Regular,Menlo,Consolas,"Liberation Mono",monospace;
--sans:system-ui,-apple-system,"Segoe UI",Roboto,"Helvetica Neue",Arial,sans-serif}
@media (prefers-color-scheme:dark){:root{--bg:#0e1117;--card:#161b24;--fg:#e5e8ee;--muted:#9aa3b4;
--line:#2a313d;--soft:#1d2430;--accent:#8fa9ff;--ok:#4cc38a;--bad:#ff8177;--warn:#e2b33f;--info:#6cb6ff}}
*{box-sizing:border-box}
html{-webkit-text-size-adjust:100%}
body{margin:0;background:var(--bg);color:var(--fg);font:16px/1.55 var(--sans)}
a{color:var(--accent);text-underline-offset:2px}
a:focus-visible,button:focus-visible,summary:focus-visible,input:focus-visible,select:focus-visible,.card:focus-visible
{outline:3px solid var(--accent);outline-offset:2px}
code,pre,kbd{font-family:var(--mono);font-size:.88em}
code{background:var(--soft);border-radius:4px;padding:.05em .3em}
pre{background:var(--soft);border-radius:8px;padding:.7rem .9rem;overflow-x:auto;line-height:1.45}
pre code{background:none;padding:0}
del{text-decoration-thickness:2px;text-decoration-color:var(--bad)}
.skip{position:absolute;left:-999px;top:0}
.sr{position:absolute;width:1px;height:1px;overflow:hidden;clip-path:inset(50%);white-space:nowrap}
.skip:focus{left:1rem;top:1rem;z-index:9;background:var(--card);padding:.5rem 1rem}
.wrap{max-width:1400px;margin:0 auto;padding:0 clamp(.75rem,3vw,2rem)}
.top{padding:1.6rem 0 1rem}
.brand{margin:0;font-weight:700;letter-spacing:.08em;text-transform:uppercase;font-size:.75rem;
color:var(--muted)}
h1{margin:.2rem 0 .3rem;font-size:clamp(1.35rem,3.2vw,2rem);line-height:1.2;overflow-wrap:anywhere}
h1 code{font-size:.8em}
.sub{margin:0;color:var(--muted);font-size:.9rem;overflow-wrap:anywhere}
.summary{display:flex;flex-wrap:wrap;gap:.6rem;list-style:none;margin:1rem 0 0;padding:0}
.summary li{background:var(--card);border:1px solid var(--line);border-radius:10px;padding:.45rem .9rem;
min-width:7.5rem;color:var(--muted);font-size:.9rem}
.summary strong{display:block;color:var(--fg);font-size:1.5rem;line-height:1.2;
font-variant-numeric:tabular-nums}
.summary .sum-superseded strong{color:var(--bad)}.summary .sum-pending strong{color:var(--warn)}
.summary .sum-active strong{color:var(--ok)}
.filters{background:var(--bg);border-bottom:1px solid var(--line);
padding:.6rem 0;margin-bottom:1rem}
.filters .wrap{display:flex;flex-wrap:wrap;gap:.5rem 1rem;align-items:end}
.filters label{display:flex;flex-direction:column;font-size:.78rem;font-weight:600;color:var(--muted);
flex:1 1 9rem;min-width:0}
.filters input,.filters select{font:inherit;font-size:.95rem;color:var(--fg);background:var(--card);
border:1px solid var(--line);border-radius:8px;padding:.4rem .55rem;margin-top:.2rem;min-width:0;width:100%;
font-weight:400;height:2.4rem}
.filters output{flex:1 1 100%;font-size:.85rem;color:var(--muted)}
@media (min-width:760px){.filters{position:sticky;top:0;z-index:5}.filters output{flex:0 1 auto;
padding-bottom:.5rem}}
.layout{display:grid;gap:1.5rem;grid-template-columns:minmax(0,1fr);padding-bottom:3rem}
@media (min-width:1100px){.layout{grid-template-columns:minmax(0,26rem) minmax(0,1fr);align-items:start}}
h2{font-size:1.05rem;margin:0 0 .7rem;letter-spacing:.01em}
h2 .count{color:var(--muted);font-weight:400}
.side>section{margin-bottom:1.6rem}
.empty{color:var(--muted);font-size:.92rem;margin:.2rem 0}
.panel{background:var(--card);border:1px solid var(--line);border-radius:12px;padding:.9rem 1rem;
margin-bottom:.9rem}
.panel h3{font-size:1rem;margin:0 0 .5rem;display:flex;flex-wrap:wrap;gap:.4rem;align-items:center}
.badge{display:inline-flex;align-items:center;gap:.25em;border:1px solid currentColor;border-radius:999px;
padding:0 .55em;font-size:.76rem;font-weight:600;line-height:1.6;white-space:nowrap;color:var(--muted)}
.b-ok{color:var(--ok);background:color-mix(in srgb,var(--ok) 10%,transparent)}
.b-bad{color:var(--bad);background:color-mix(in srgb,var(--bad) 10%,transparent)}
.b-warn{color:var(--warn);background:color-mix(in srgb,var(--warn) 12%,transparent)}
.b-info{color:var(--info);background:color-mix(in srgb,var(--info) 10%,transparent)}
.task{font-family:var(--mono);font-size:.85em;font-weight:600;color:var(--fg);background:var(--soft);
border:1px solid var(--line);cursor:pointer;line-height:1.4;
border-radius:6px;padding:0 .35em;white-space:nowrap}
.steps{list-style:none;margin:.3rem 0 0;padding:0 0 0 1.4rem;position:relative}
.steps::before{content:"";position:absolute;left:.45rem;top:.4rem;bottom:.4rem;width:2px;
background:var(--line)}
.step{position:relative;margin:0 0 .85rem}
.step::before{content:"";position:absolute;left:-1.23rem;top:.38rem;width:.7rem;height:.7rem;
border-radius:50%;
background:var(--card);border:2px solid var(--muted)}
.step.off::before{border-color:var(--bad)}.step.on::before{background:var(--ok);border-color:var(--ok)}
.step.landed::before{background:var(--info);border-color:var(--info)}
.step.wait::before{border-color:var(--warn);border-style:dashed}
.step p{margin:.1rem 0;font-size:.9rem}
.step .what{font-weight:600;font-size:.95rem;overflow-wrap:anywhere}
.step .n{color:var(--muted);font-variant-numeric:tabular-nums;margin-right:.3rem}
.step .how{color:var(--muted)}
.card{background:var(--card);border:1px solid var(--line);border-left:5px solid var(--muted);
border-radius:12px;
padding:.9rem 1.1rem .7rem;margin-bottom:.9rem;scroll-margin-top:6rem}
.many .card{content-visibility:auto;contain-intrinsic-size:auto 10rem}
@media print{.many .card{content-visibility:visible}}
.card.st-active{border-left-color:var(--ok)}
.card.st-superseded,.card.st-red-herring{border-left-color:var(--bad)}
.card.st-open{border-left-color:var(--warn)}
.card:target{box-shadow:0 0 0 3px color-mix(in srgb,var(--accent) 45%,transparent)}
.card h3{margin:0;font-size:1.08rem;line-height:1.35;overflow-wrap:anywhere}
.card h3 a{color:inherit;text-decoration:none}.card h3 a:hover{text-decoration:underline}
.card .head{display:flex;flex-wrap:wrap;gap:.3rem .8rem;align-items:baseline;justify-content:space-between}
.card .badges{display:flex;flex-wrap:wrap;gap:.3rem;margin:0}
.meta{margin:.35rem 0 0;color:var(--muted);font-size:.85rem;display:flex;flex-wrap:wrap;gap:.2rem .9rem}
.meta .id{overflow-wrap:anywhere}
.links{margin:.65rem 0 0;padding:0;list-style:none}
.links li{display:flex;flex-wrap:wrap;gap:.35rem;align-items:baseline;margin:.3rem 0;padding:.4rem .6rem;
border-radius:8px;background:var(--soft);font-size:.9rem}
.arrow{font-weight:700;color:var(--muted)}
.links .other{font-weight:600;overflow-wrap:anywhere}
.text{margin-top:.5rem}
.text>summary{cursor:pointer;color:var(--muted);font-size:.85rem;font-weight:600}
.body{overflow-wrap:anywhere}
.body>:first-child{margin-top:.4rem}.body>:last-child{margin-bottom:.2rem}
.body blockquote{margin:.6rem 0;padding:.1rem .9rem;border-left:3px solid var(--line);color:var(--muted)}
.body table{border-collapse:collapse;display:block;overflow-x:auto}
.body th,.body td{border:1px solid var(--line);padding:.25rem .5rem}
.body .lang{display:block;font-size:.75rem;color:var(--muted);margin-bottom:.2rem}
del.body{display:block;text-decoration:line-through;color:var(--muted)}
.struck-now .body{text-decoration:line-through;text-decoration-thickness:2px;
text-decoration-color:var(--bad);color:var(--muted)}
.struck-label{margin:.4rem 0 0;font-size:.85rem;font-weight:600;color:var(--bad)}
.notes{display:grid;grid-template-columns:max-content minmax(0,1fr);gap:.15rem .8rem;
margin:.6rem 0 .2rem;font-size:.88rem}
.notes dt{color:var(--muted);font-weight:600}.notes dd{margin:0;overflow-wrap:anywhere}
.diff{font-size:.8rem;max-height:28rem}
.diff .add{color:var(--ok)}.diff .del{color:var(--bad)}.diff .hunk{color:var(--info)}
.evidence{margin:.3rem 0 0;padding-left:1.1rem;font-size:.84rem;color:var(--muted);overflow-wrap:anywhere}
.finding{font-size:.9rem}
.notice{border:1px dashed var(--warn);border-radius:8px;padding:.4rem .7rem;font-size:.88rem}
footer{color:var(--muted);font-size:.8rem;padding:1rem 0 2rem;border-top:1px solid var(--line)}
[hidden]{display:none!important}
@media (max-width:480px){body{font-size:15px}.summary{gap:.4rem}.summary li{min-width:0;flex:1 1 28%;
padding:.35rem .6rem}
.summary strong{font-size:1.25rem}.filters label{flex:1 1 40%}.card{padding:.8rem .8rem .6rem}
.notes{grid-template-columns:minmax(0,1fr)}}
@media (prefers-reduced-motion:no-preference){html{scroll-behavior:smooth}}
"""

JS = """
(() => {
  "use strict";
  const form = document.getElementById("filters");
  if (!form) return;
  const task = document.getElementById("f-task"), status = document.getElementById("f-status");
  const text = document.getElementById("f-text"), count = document.getElementById("f-count");
  const cards = Array.from(document.querySelectorAll("article.card"));
  const partly = cards.filter((c) => c.dataset.red && !c.classList.contains("struck"));
  const panels = Array.from(document.querySelectorAll("[data-task]"));
  let texts = null;
  const norm = (t) => { t = t.trim(); return /^\\d+$/.test(t) ? "#" + t : t; };
  function apply() {
    const t = norm(task.value), s = status.value, q = text.value.trim().toLowerCase();
    if (q && !texts) texts = cards.map((c) => c.textContent.toLowerCase());
    const key = " " + t + " ";
    let shown = 0;
    for (let i = 0; i < cards.length; i++) {
      const c = cards[i];
      const ok = (!t || c.dataset.tasks.includes(key)) && (!s || c.dataset.status === s) &&
        (!q || texts[i].includes(q));
      if (c.hidden === ok) c.hidden = !ok;
      if (ok) shown++;
    }
    for (const c of partly) {
      const on = !!t && c.dataset.red.includes(key);
      c.classList.toggle("struck-now", on);
      const label = c.querySelector(".struck-label");
      if (label) label.hidden = !on;
    }
    for (const p of panels) p.hidden = !!t && p.dataset.task !== t;
    count.value = shown + " of " + cards.length + " lessons shown";
  }
  form.addEventListener("input", apply);
  form.addEventListener("change", apply);
  form.addEventListener("submit", (e) => { e.preventDefault(); apply(); });
  document.addEventListener("click", (e) => {
    const chip = e.target.closest("button.task");
    if (!chip) return;
    task.value = chip.textContent;
    apply();
    form.scrollIntoView({ block: "start" });
    task.focus();
  });
  if (task.value || status.value || text.value) apply();
})();
"""


def _digest(source: str) -> str:
    return (
        "'sha256-" + base64.b64encode(hashlib.sha256(source.encode("utf-8")).digest()).decode("ascii") + "'"
    )


CSP = (
    "default-src 'none'; "
    f"style-src {_digest(CSS)}; "
    f"script-src {_digest(JS)}; "
    "img-src data:; base-uri 'none'; form-action 'none'"
)
"""Nothing is fetched, framed, posted or run but the two inline blocks (a ``<meta>`` policy
cannot set ``frame-ancestors``; the page has nothing to protect from framing)."""
