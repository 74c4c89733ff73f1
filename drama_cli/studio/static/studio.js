// drama studio: the page. Every piece of user text (ids, names, lines, notes) reaches the
// page through textContent (the `el` helper), never as HTML.
"use strict";

const state = {
  script: null,        // /api/script
  lines: [],           // flat list of line states, script order
  current: null,       // id of the line shown
  line: null,          // /api/line of the current line
  shown: 0,            // counts views asked for: only the latest one asked is drawn
  audio: new Map(),    // take number -> <audio>
  peaks: new Map(),    // take number -> /api/peaks of the current line (a take never changes)
  playing: null,       // take number playing (or last played)
  ab: [null, null],    // the two takes A/B switches between
  changes: "",
  view: "line",        // "line" or "scene" (the current line's scene)
  jobs: [],
  drafts: new Map(),   // "kind line" -> {text, job}: a note or text sent, until its job is done
};

const KEYS = [
  ["j / ↓", "next line"], ["k / ↑", "previous line"], ["space", "play / pause (the mix in the scene view)"],
  ["1 – 9", "select take N (line view)"], ["x", "A/B: switch to the other take at the same position"],
  ["a / b", "mark the playing take as A / B"], ["n", "render again"], ["r", "revise with a note"],
  ["e", "edit by text"], ["s", "scene view: the mix timeline / back to the line"],
  ["m", "mix the scene again"], ["f", "only lines that need attention"],
  ["c", "cast view: j / k a character, p its voice, 1 – 9 an audition, u audition, l lock the one played, y take the proposal"],
  ["t", "attribution view: j / k a line, 1 – 9 its Nth candidate as the speaker"], ["?", "this help"],
];

// -- small helpers -------------------------------------------------------------------------

function el(tag, attrs, ...children) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs || {})) {
    if (name === "class") node.className = value;
    else if (name.startsWith("on")) node.addEventListener(name.slice(2), value);
    else if (value !== null && value !== undefined && value !== false) node.setAttribute(name, value);
  }
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue;
    node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return node;
}

async function api(path, body) {
  const options = body === undefined ? {} : {
    method: "POST", headers: {"Content-Type": "application/json"}, body: JSON.stringify(body)};
  const response = await fetch(path, {credentials: "same-origin", cache: "no-store", ...options});
  const data = await response.json().catch(() => ({error: response.statusText}));
  if (!response.ok) throw new Error(data.error || response.statusText);
  return data;
}

function say(text) {
  const box = document.getElementById("message");
  box.textContent = text;
  box.classList.add("shown");
  clearTimeout(say.timer);
  say.timer = setTimeout(() => box.classList.remove("shown"), 3500);
}

const query = (params) => new URLSearchParams(params).toString();
const seconds = (value) => (value === null || value === undefined) ? "" : `${Number(value).toFixed(2)} s`;

// -- script view ---------------------------------------------------------------------------

function lineText(line) {
  const text = el("span", {class: "text"},
    line.parts.map((part) => el("span", {class: `part-${part.kind}`}, part.text)));
  return line.said ? [text, el("div", {class: "said"}, line.said)] : [text];
}

function statusBadges(line) {
  const badges = [el("span", {class: `badge status-${line.status}`},
    line.status === "none" ? "no take" : line.status)];
  if (line.degraded) badges.push(el("span", {class: "badge flag"}, "degraded"));
  if (line.failed && !line.degraded) badges.push(el("span", {class: "badge flag"}, "failed checks"));
  if (line.wer_over) badges.push(el("span", {class: "badge flag"}, `WER ${line.wer.toFixed(2)}`));
  if (line.voice_failed && line.voice) {
    badges.push(el("span", {class: "badge flag"}, `voice ${line.voice.similarity.toFixed(2)}`));
  }
  if (line.quality_failed && line.quality) {
    badges.push(el("span", {class: "badge flag"}, `MOS ${line.quality.ovrl.toFixed(2)}`));
  }
  return el("span", {class: "badges"}, badges);
}

function countText(counts) {
  return `${counts.lines} lines · ${counts.current} current · ${counts.stale} stale · ` +
    `${counts.none + counts.unusable} without a usable take · ${counts.attention} need attention`;
}

function drawScript() {
  const nav = document.getElementById("script");
  const view = state.script;
  document.getElementById("title").textContent = view.title || "drama studio";
  document.getElementById("totals").textContent =
    countText(view.counts) + (view.engine ? ` · ${view.engine}` : "");
  const parts = [];
  state.lines = [];
  for (const chapter of view.chapters) {
    const own = chapter.scenes.length === 1 && [chapter.scenes[0].id, chapter.scenes[0].title].includes(chapter.title);
    if (chapter.title && !own) parts.push(el("h2", {}, chapter.title));
    for (const scene of chapter.scenes) {
      parts.push(el("h3", {}, `${scene.title || scene.id} — ${scene.counts.attention} of ${scene.counts.lines} need attention`));
      parts.push(el("ol", {}, scene.lines.map((line) => {
        state.lines.push(line);
        return el("li", {"data-line": line.id, "data-status": line.status,
                         class: line.id === state.current ? "current" : "",
                         onclick: () => showLine(line.id)},
          el("span", {class: "speaker"}, line.speaker), el("span", {}, lineText(line)),
          statusBadges(line));
      })));
    }
  }
  nav.replaceChildren(...parts);
  applyFilter();
}

function applyFilter() {
  const only = document.getElementById("attention").checked;
  const attention = new Set(state.lines.filter((l) => l.attention).map((l) => l.id));
  for (const item of document.querySelectorAll("nav li")) {
    item.classList.toggle("hidden", only && !attention.has(item.dataset.line));
  }
}

function visibleLines() {
  const only = document.getElementById("attention").checked;
  return state.lines.filter((line) => !only || line.attention);
}

function step(delta) {
  const lines = visibleLines();
  if (!lines.length) return;
  const at = lines.findIndex((line) => line.id === state.current);
  const next = at < 0 ? 0 : Math.min(lines.length - 1, Math.max(0, at + delta));
  showLine(lines[next].id);
}

// -- line view -----------------------------------------------------------------------------

async function showLine(id) {
  state.view = "line";
  const asked = ++state.shown;
  // the players and waveforms are those of the line drawn last (the scene view moves
  // state.current to a block's line without drawing it)
  if (!state.line || id !== state.line.line.id) {
    stopAll();
    state.audio.clear();
    state.peaks.clear();
    state.ab = [null, null];
    state.playing = null;
  }
  state.current = id;
  for (const item of document.querySelectorAll("nav li")) {
    const here = item.dataset.line === id;
    item.classList.toggle("current", here);
    if (here) item.scrollIntoView({block: "nearest"});
  }
  let line;
  try {
    line = await api(`/api/line?${query({id})}`);
  } catch (err) {
    say(err.message);
    return;
  }
  if (asked !== state.shown) return;  // a newer view was asked for while this one loaded
  state.line = line;
  drawLine();
}

function origin(take) {
  const bits = [];
  if (take.edit) bits.push(take.edit.whole_line ? `edit: whole line as “${take.edit.new_text}”` :
    `edit ${(take.edit.span_s || []).map((s) => s.toFixed(2)).join("–")} s: “${take.edit.new_text}”`);
  else if (take.parent_take) bits.push(`revised from take ${take.parent_take}: “${take.note}”`);
  else bits.push("render");
  if (take.seed !== null && take.seed !== undefined) bits.push(`seed ${take.seed}`);
  if (take.engine) bits.push(take.engine + (take.scratch ? " (draft)" : ""));
  if (take.model_revision) bits.push(`model ${take.model_revision}`);
  return bits.join(" · ");
}

function takeChecks(take) {
  const bits = [take.status];
  if (take.stale) bits.push("stale");
  if (take.failures && take.failures.length) bits.push(take.failures.join("; "));
  if (take.problem) bits.push(take.problem);
  if (take.wer !== null && take.wer !== undefined) bits.push(`WER ${take.wer.toFixed(2)}`);
  bits.push(...takeScores(take));
  return bits.join(" · ");
}

// A take's voice match and naturalness as text (`views.take_scores`), each with its limit and
// "under" when the take fails it.
function takeScores(take) {
  const bits = [];
  if (take.voice) {
    const limit = take.voice.threshold === null ? "" : ` (min ${take.voice.threshold.toFixed(2)})`;
    const under = take.voice_failed ? " under" : "";
    bits.push(`voice ${take.voice.similarity.toFixed(2)}${limit}${under}`);
  }
  if (take.quality) {
    const floor = take.quality.floor === null ? "" : ` (min ${take.quality.floor.toFixed(2)})`;
    const under = take.quality_failed ? " under" : "";
    bits.push(`MOS ${take.quality.ovrl.toFixed(2)}${floor}${under}`);
  }
  return bits;
}

function drawLine() {
  const view = state.line;
  const line = view.line;
  const known = new Set(view.takes.filter((t) => t.status !== "invalid").map((t) => t.take));
  for (const kept of [state.audio, state.peaks]) {
    for (const number of [...kept.keys()]) if (!known.has(number)) kept.delete(number);
  }
  if (!state.ab[0] || !known.has(state.ab[0])) state.ab[0] = line.take || [...known][0] || null;
  if (!state.ab[1] || !known.has(state.ab[1])) {
    state.ab[1] = [...known].reverse().find((n) => n !== state.ab[0]) || null;
  }
  const takes = view.takes.map((take) => drawTake(take));
  const heading = el("div", {class: "line-head"},
    el("h2", {}, el("span", {class: "speaker"}, line.speaker), " ", lineText(line)),
    el("p", {class: "hint"}, `${view.scene_title || view.scene} · line ${line.id} · `, statusBadges(line),
      line.problem ? ` ${line.problem}` : ""),
    el("p", {},
      el("button", {type: "button", onclick: () => openAction("render")}, "Render again (n)"), " ",
      el("button", {type: "button", onclick: () => openAction("revise")}, "Revise… (r)"), " ",
      el("button", {type: "button", onclick: () => openAction("edit")}, "Edit text… (e)")));
  const body = takes.length ? takes : [el("p", {class: "empty"}, "No takes yet: render again (n) makes one.")];
  document.getElementById("line").replaceChildren(heading, ...body);
  waveWatch.disconnect();  // the canvases drawn before are gone
  for (const canvas of document.querySelectorAll("#line canvas.wave")) {
    const number = Number(canvas.dataset.take);
    if (state.peaks.has(number)) loadPeaks(number); else waveWatch.observe(canvas);
  }
}

function drawTake(take) {
  const number = take.take;
  if (take.status === "invalid") {
    return el("div", {class: "take"}, el("b", {}, `Take ${number}`), " unusable: ", take.problem);
  }
  let audio = state.audio.get(number);
  if (!audio) {
    audio = el("audio", {preload: "none", "data-take": number,  // loaded when played
                         src: `/api/audio?${query({line: state.current, take: number})}`});
    audio.addEventListener("play", () => markPlaying(number));
    audio.addEventListener("ended", () => markPlaying(null));
    for (const stopped of ["pause", "seeked"]) audio.addEventListener(stopped, () => drawProgress(number));
    state.audio.set(number, audio);
  }
  const ab = state.ab[0] === number ? "A" : state.ab[1] === number ? "B" : "";
  const canvas = el("canvas", {class: "wave", width: 800, height: 64, "data-take": number});
  canvas.addEventListener("click", (event) => {
    const box = canvas.getBoundingClientRect();
    const duration = audio.duration || take.duration_s;
    if (duration) audio.currentTime = duration * (event.clientX - box.left) / box.width;
    play(number, audio.currentTime);
  });
  const words = (take.words || []).map((w) => `${w[2]} ${w[0].toFixed(2)}`).join(" · ");
  return el("div", {class: `take${take.selected ? " selected" : ""}`, id: `take-${number}`, "data-take": number},
    el("div", {class: "take-head"},
      el("b", {}, `Take ${number}`), take.selected ? el("span", {class: "badge status-current"}, "selected") : null,
      ab ? el("span", {class: "ab"}, ab) : null,
      el("span", {}, seconds(take.duration_s)),
      el("button", {type: "button", onclick: () => toggle(number)}, "Play"),
      take.selected ? null : el("button", {type: "button", onclick: () => select(number)}, `Select (${number <= 9 ? number : "-"})`),
      el("span", {class: "origin"}, takeChecks(take))),
    el("div", {class: "origin"}, origin(take)),
    take.text !== line_text_of(state.line) ? el("div", {class: "said"}, take.text) : null,
    canvas, words ? el("div", {class: "words"}, words) : null, audio);
}

function line_text_of(view) {  // the words only, as a take's text gives them
  return view.line.parts.filter((p) => p.kind === "text").map((p) => p.text).join("")
    .replace(/\s+/g, " ").trim();
}

function line_source_of(view) {  // the line as written, tags included (notes are not part of it)
  return view.line.parts.filter((p) => p.kind !== "note").map((p) => p.text).join("").trim();
}

// a waveform is fetched when its take scrolls into view: a line may list hundreds of takes,
// and requests queued for all of them would hold up a selection behind them
const waveWatch = new IntersectionObserver((entries) => {
  for (const entry of entries) {
    if (!entry.isIntersecting) continue;
    waveWatch.unobserve(entry.target);
    if (entry.target.isConnected) loadPeaks(Number(entry.target.dataset.take));
  }
});

async function loadPeaks(number) {  // fetched once per take while its line is shown
  const line = state.current;
  let data = state.peaks.get(number);
  if (!data) {
    try {
      data = await api(`/api/peaks?${query({line, take: number})}`);
    } catch (err) { say(err.message); return; }
    if (line !== state.current) return;
    state.peaks.set(number, data);
  }
  const canvas = document.querySelector(`canvas.wave[data-take="${number}"]`);
  if (canvas) {
    const take = state.line.takes.find((t) => t.take === number);
    canvas.peaks = data.peaks;
    canvas.duration = data.duration_s;
    canvas.words = (take && take.words) || [];
    drawWave(canvas, 0);
  }
}

function drawWave(canvas, fraction) {
  const ctx = canvas.getContext("2d");
  const {width, height} = canvas;
  const peaks = canvas.peaks || [];
  ctx.clearRect(0, 0, width, height);
  const loudest = peaks.reduce((top, [low, high]) => Math.max(top, -low, high), 1e-6);
  const mid = height / 2;
  const scale = mid / loudest;
  for (let i = 0; i < peaks.length; i++) {
    const x = (i / peaks.length) * width;
    ctx.fillStyle = i / peaks.length < fraction ? "#2b5fab" : "#9aa7b8";
    const [low, high] = peaks[i];
    ctx.fillRect(x, mid - high * scale, Math.max(1, width / peaks.length), Math.max(1, (high - low) * scale));
  }
  ctx.fillStyle = "#b26b00";  // where each recognised word starts
  for (const [start] of canvas.words || []) {
    if (canvas.duration) ctx.fillRect(Math.round(width * start / canvas.duration), 0, 1, 6);
  }
}

function drawProgress(number) {
  const audio = state.audio.get(number);
  const canvas = document.querySelector(`canvas.wave[data-take="${number}"]`);
  if (audio && canvas && canvas.peaks && audio.duration) drawWave(canvas, audio.currentTime / audio.duration);
}

function animate() {  // only takes playing move: a line may list hundreds of takes
  for (const [number, audio] of state.audio) if (!audio.paused) drawProgress(number);
  requestAnimationFrame(animate);
}

// -- playing, A/B, selecting ----------------------------------------------------------------

function stopAll() {
  for (const audio of state.audio.values()) audio.pause();
}

function markPlaying(number) {
  if (number !== null) state.playing = number;
  for (const box of document.querySelectorAll(".take")) {
    box.classList.toggle("playing", Number(box.dataset.take) === number);
  }
}

function play(number, at) {
  const audio = state.audio.get(number);
  if (!audio) return;
  for (const [other, element] of state.audio) if (other !== number) element.pause();
  if (at !== undefined) audio.currentTime = at;
  audio.play().catch((err) => say(`cannot play take ${number}: ${err.message}`));
}

function toggle(number) {
  const audio = state.audio.get(number);
  if (!audio) return;
  if (audio.paused) play(number); else audio.pause();
}

function playPause() {
  if (state.view === "scene") {  // the scene's mix, when it has one
    const mix = document.getElementById("mix");
    if (mix) { if (mix.paused) mix.play().catch((err) => say(err.message)); else mix.pause(); }
    return;
  }
  const number = state.playing || (state.line && state.line.line.take) || state.ab[0];
  if (number) toggle(number);
}

function inLineView(what) {  // whether the line view is shown; else says that `what` needs it
  if (state.view === "line") return true;
  say(`${what} in the line view (s)`);
  return false;
}

function switchAB() {
  if (!inLineView("A/B works")) return;
  const [a, b] = state.ab;
  if (!a || !b) { say("A/B needs two takes"); return; }
  const from = state.playing === a ? a : state.playing === b ? b : null;
  const to = from === a ? b : a;
  const position = from ? state.audio.get(from).currentTime : 0;
  play(to, position);
  say(`${to === a ? "A" : "B"}: take ${to}`);
}

function markAB(slot) {
  if (!inLineView("A/B works")) return;
  const number = state.playing;
  if (!number) { say("play a take first"); return; }
  state.ab[slot] = number;
  if (state.ab[1 - slot] === number) state.ab[1 - slot] = null;
  drawLine();
}

async function select(number) {
  if (!inLineView("select takes")) return;
  if (!state.line || !state.line.takes.some((t) => t.take === number && t.status !== "invalid")) {
    say(`no take ${number}`);
    return;
  }
  const asked = state.shown;
  try {
    const line = await api("/api/select", {line: state.current, take: number});
    if (line.queued) { say(`take ${number} is selected when ${line.after} is done`); poll(); return; }
    say(`take ${number} selected`);
    refreshScript();
    if (asked !== state.shown) return;  // another line or the scene view was opened meanwhile
    state.line = line;
    drawLine();
  } catch (err) { say(err.message); }
}

// -- scene view -------------------------------------------------------------------------------

async function showScene() {
  if (!state.line) return;
  stopAll();
  state.view = "scene";  // set before loading, so a refresh meanwhile reloads the scene, not the line
  const asked = ++state.shown;
  let view;
  try {
    view = await api(`/api/scene?${query({id: state.line.scene})}`);
  } catch (err) {
    if (asked === state.shown) state.view = "line";
    say(err.message);
    return;
  }
  if (asked !== state.shown) return;  // a newer view was asked for while this one loaded
  const total = view.total_s || 1;
  const speakers = [...new Set(view.blocks.map((b) => b.speaker))];
  const percent = (s) => `${(100 * s / total).toFixed(3)}%`;
  const mix = view.mixed ? el("audio", {id: "mix", controls: true, preload: "metadata",
    src: `/api/mix?${query({scene: view.scene, v: state.changes})}`}) : null;
  const lanes = speakers.map((speaker) => el("div", {class: "lane"},
    el("span", {class: "lane-name"}, speaker),
    el("div", {class: "lane-track"},
      view.overlaps.map(([a, b]) => el("div", {class: "overlap", style: `left:${percent(a)};width:${percent(b - a)}`})),
      view.blocks.filter((b) => b.speaker === speaker).map((block) => el("button", {
        type: "button", class: `block${block.line === state.current ? " current" : ""}`,
        "data-line": block.line, title: block.text,
        style: `left:${percent(block.start_s)};width:${percent(block.end_s - block.start_s)}`,
        onclick: () => playMixFrom(block), ondblclick: () => { state.view = "line"; showLine(block.line); },
      }, block.text)))));
  const gaps = view.gaps.filter(([a, b]) => b - a >= 0.75).map(([a, b]) => `${a.toFixed(1)}–${b.toFixed(1)} s`);
  document.getElementById("line").replaceChildren(
    el("h2", {}, `Scene ${view.title || view.scene}`),
    el("p", {class: "hint"}, `${view.blocks.length} lines · ${total.toFixed(1)} s`,
      view.overlaps.length ? ` · ${view.overlaps.length} overlap${view.overlaps.length > 1 ? "s" : ""}` : "",
      gaps.length ? ` · long gaps ${gaps.join(", ")}` : "",
      view.mix_outdated ? " · the selections changed since the last mix" : "",
      view.mix_stale_files.length ? ` · not of the last mix: ${view.mix_stale_files.join(", ")}` : "",
      view.mixed ? "" : " · not mixed yet"),
    el("p", {}, el("button", {type: "button", onclick: remixScene}, "Mix again (m)"), " ",
      el("button", {type: "button", onclick: () => { state.view = "line"; showLine(state.current); }}, "Back to the line (s)")),
    mix, el("div", {class: "timeline"}, lanes),
    el("p", {class: "hint"}, "Click a block to play the mix from that line; double-click to open the line."));
}

function playMixFrom(block) {
  const mix = document.getElementById("mix");
  if (!mix) { say("the scene has no mix yet: mix it again (m)"); return; }
  mix.currentTime = block.start_s;
  mix.play().catch((err) => say(err.message));
  state.current = block.line;
  for (const item of document.querySelectorAll(".block")) {
    item.classList.toggle("current", item.dataset.line === block.line);
  }
}

async function remixScene() {
  if (!state.line) return;
  try {
    await api("/api/jobs", {kind: "mix", line: state.line.scene});
    say(`mixing ${state.line.scene}`);
    poll();
  } catch (err) { say(err.message); }
}

function toggleScene() {
  if (state.view === "scene") { state.view = "line"; showLine(state.current); } else showScene();
}

// -- cast and attribution views ---------------------------------------------------------------

const casting = {members: [], at: 0, played: null, lines: [], line: 0};

// a cast or attribution view asked for counts as a view in state.shown: a line or scene view
// still loading draws nothing over it, and it draws nothing over a view asked for after it
async function showCast() {
  stopAll();
  state.view = "cast";
  const asked = ++state.shown;
  let members;
  try { members = (await api("/api/cast")).members; } catch (err) { say(err.message); return; }
  if (asked !== state.shown) return;
  casting.members = members;
  casting.at = Math.min(casting.at, Math.max(0, casting.members.length - 1));
  drawCast();
}

function drawCast() {
  const rows = casting.members.map((m, i) => el("tr", {class: i === casting.at ? "current" : "", "data-character": m.name},
    el("td", {}, m.name, m.narrator ? " (narrator)" : ""), el("td", {}, String(m.lines)),
    el("td", {}, m.voice.kind === "none" ? "no voice" : `${m.voice.kind}: ${m.voice.name}`,
      ["clip", "library"].includes(m.voice.kind) ?
        el("audio", {controls: true, preload: "none", "data-voice": m.name, src: `/api/cast/audio?${query({character: m.name})}`}) : null),
    el("td", {}, m.proposal ? `${m.proposal.voice} (${m.proposal.reasons.join(", ") || "free"})` : ""),
    el("td", {class: "auditions"}, m.auditions.map((a) => el("span", {class: "audition"}, `${a.take} `,
      el("audio", {controls: true, preload: "none", "data-take": a.take, "data-character": m.name,
        src: `/api/cast/audio?${query({character: m.name, take: a.take})}`}))))));
  document.getElementById("line").replaceChildren(
    el("h2", {}, "Cast"),
    el("table", {class: "cast"}, el("tr", {}, ["character", "lines", "voice", "proposal", "auditions"].map((h) => el("th", {}, h))), rows),
    el("p", {class: "hint"}, "j / k a character · p its voice · 1 – 9 an audition · u audition · l lock the audition played · y take the proposal · c back"));
}

function castKey(key) {
  const member = casting.members[casting.at];
  if (key === "j" || key === "k") { casting.at = Math.max(0, Math.min(casting.members.length - 1, casting.at + (key === "j" ? 1 : -1))); drawCast(); return true; }
  if (!member) return false;
  const play = (selector) => { const a = document.querySelector(selector); if (a) { stopAll(); a.currentTime = 0; a.play().catch((err) => say(err.message)); } return a; };
  if (key === "p") { play(`audio[data-voice="${CSS.escape(member.name)}"]`) || say(`${member.name} has no clip`); return true; }
  if (/^[1-9]$/.test(key)) {
    const a = play(`tr.current audio[data-take="${key}"]`);
    if (a) casting.played = {character: member.name, take: Number(key)}; else say(`no audition ${key}`);
    return true;
  }
  const post = async (path, body, done) => {
    const asked = state.shown;
    try {
      const members = (await api(path, body)).members;
      say(done);
      if (asked === state.shown) { casting.members = members; drawCast(); }  // else another view is shown
    } catch (err) { say(err.message); }
  };
  if (key === "u") { say(`auditioning ${member.name}`); post("/api/cast/audition", {character: member.name, candidates: 4}, `${member.name}: auditions made`); return true; }
  if (key === "l") {
    if (!casting.played || casting.played.character !== member.name) { say("play an audition first (1 – 9)"); return true; }
    post("/api/cast/lock", {character: member.name, take: casting.played.take}, `${member.name} locked to take ${casting.played.take}`);
    return true;
  }
  if (key === "y") { post("/api/cast/apply", {character: member.name}, `${member.name} takes ${member.proposal ? member.proposal.voice : "its proposal"}`); return true; }
  return false;
}

async function showAttribution() {
  stopAll();
  state.view = "attribution";
  const asked = ++state.shown;
  let lines;
  try { lines = (await api("/api/attribution")).lines; } catch (err) { say(err.message); return; }
  if (asked !== state.shown) return;
  casting.lines = lines;
  casting.line = Math.min(casting.line, Math.max(0, casting.lines.length - 1));
  drawAttribution();
}

function drawAttribution() {
  const items = casting.lines.map((line, i) => el("li", {class: i === casting.line ? "current" : "", "data-line": line.id},
    el("span", {class: "speaker"}, line.speaker), " ", el("span", {class: "text"}, line.text), " ",
    el("span", {class: "candidates"}, line.candidates.map((c, n) => el("button", {type: "button", "data-candidate": c.name,
      onclick: () => { casting.line = i; chooseSpeaker(n); }}, `${n + 1} ${c.name} ${c.p.toFixed(2)}`))),
    line.rule ? el("span", {class: "hint"}, ` (${line.rule})`) : null));
  document.getElementById("line").replaceChildren(
    el("h2", {}, "Attribution"),
    items.length ? el("ol", {class: "attribution"}, items) : el("p", {class: "empty"}, "Every line has its speaker."),
    el("p", {class: "hint"}, "j / k a line · 1 – 9 its candidate as the speaker · t back"));
}

async function chooseSpeaker(n) {
  const line = casting.lines[casting.line];
  const candidate = line && line.candidates[n];
  if (!candidate) { say("no such candidate"); return; }
  const asked = state.shown;
  try {
    const lines = (await api("/api/attribution", {line: line.id, speaker: candidate.name})).lines;
    say(`${line.id}: ${candidate.name}`);
    if (asked !== state.shown) return;  // another view is shown
    casting.lines = lines;
    // the line chosen leaves the list: the one after it is chosen now, else the new last one
    casting.line = Math.min(casting.line, Math.max(0, lines.length - 1));
    drawAttribution();
  } catch (err) { say(err.message); }
}

function attributionKey(key) {
  if (key === "j" || key === "k") { casting.line = Math.max(0, Math.min(casting.lines.length - 1, casting.line + (key === "j" ? 1 : -1))); drawAttribution(); return true; }
  if (/^[1-9]$/.test(key)) { chooseSpeaker(Number(key) - 1); return true; }
  return false;
}

function leaveCasting() { state.view = "line"; if (state.current) showLine(state.current); }

// -- actions and jobs ------------------------------------------------------------------------

// longest: the server's MAX_NOTE_CHARS and MAX_TEXT_CHARS (drama_cli/studio/actions.py)
const ACTIONS = {
  render: {title: "Render again", hint: "New takes of this line, as drama render makes them.", text: false},
  revise: {title: "Revise with a note", hint: "The director's note the new take is read against.", text: true, longest: 500},
  edit: {title: "Edit by text", hint: "Type the line as it should be said; the part that changed is voiced again.", text: true, longest: 4000},
};

function openAction(kind) {
  if (!state.line) return;
  if (!inLineView("render, revise and edit")) return;
  const action = ACTIONS[kind];
  const dialog = document.getElementById("action");
  dialog.dataset.kind = kind;
  document.getElementById("action-title").textContent = `${action.title}: ${state.current}`;
  const from = kind !== "render" && state.playing ? ` From take ${state.playing} (the one played last).` : "";
  document.getElementById("action-hint").textContent = action.hint + from;
  const text = document.getElementById("action-text");
  text.hidden = !action.text;
  text.maxLength = action.longest || 4000;
  const source = state.line.takes.find((t) => t.take === (state.playing || state.line.line.take));
  text.value = unfinishedDraft(kind) ??
    (kind !== "edit" ? "" : (source && source.edit && source.edit.new_text) || line_source_of(state.line));
  document.getElementById("action-takes").value = 1;
  dialog.showModal();
  (action.text ? text : document.getElementById("action-ok")).focus();
}

function unfinishedDraft(kind) {  // what was typed for an action refused or failed, to try again
  const draft = state.drafts.get(`${kind} ${state.current}`);
  const job = draft && state.jobs.find((j) => j.id === draft.job);
  const unfinished = draft && (draft.job === null || (job && ["failed", "cancelled"].includes(job.state)));
  return unfinished ? draft.text : undefined;
}

async function submitAction(event) {
  const dialog = document.getElementById("action");
  if (event.submitter && event.submitter.value === "cancel") return;
  const kind = dialog.dataset.kind;
  const body = {kind, line: state.current, takes: Number(document.getElementById("action-takes").value)};
  const text = document.getElementById("action-text").value;
  if (kind === "revise") body.note = text;
  if (kind === "edit") body.text = text;
  const viewed = state.playing;
  if (viewed && kind !== "render") body.from_take = viewed;
  const draft = `${kind} ${state.current}`;
  state.drafts.set(draft, {text, job: null});
  try {
    const job = await api("/api/jobs", body);
    state.drafts.set(draft, {text, job: job.id});
    say(`${kind} of ${job.line} queued`);
    poll();
  } catch (err) { say(err.message); }
}

function drawJobs() {
  const box = document.getElementById("jobs");
  const shown = state.jobs.filter((job) => ["queued", "running"].includes(job.state)).concat(
    state.jobs.filter((job) => !["queued", "running"].includes(job.state)).slice(-3));
  box.replaceChildren(...shown.map((job) => el("span", {class: `job job-${job.state}`, "data-job": job.id},
    `${job.kind} ${job.line}: ${job.state}`,
    job.state === "running" ? [" ", el("progress", {max: job.total, value: job.done}), ` ${job.message}`] : null,
    job.takes.length ? ` (takes ${job.takes.join(", ")})` : "",
    job.error ? ` — ${job.error}` : "",
    ["queued", "running"].includes(job.state) ?
      [" ", el("button", {type: "button", onclick: () => cancel(job.id)}, "Cancel")] : null)));
}

async function cancel(id) {
  try { await api(`/api/jobs/${id}/cancel`, {}); poll(); } catch (err) { say(err.message); }
}

// -- keeping up with the project folder -------------------------------------------------------

async function refreshScript() {
  const asked = refreshScript.asked = (refreshScript.asked || 0) + 1;
  try {
    const script = await api("/api/script");
    if (asked !== refreshScript.asked) return;  // a newer one was asked for: it is drawn instead
    state.script = script;
    drawScript();
  } catch (err) { say(err.message); }
}

async function poll() {
  try {
    const data = await api("/api/changes");
    const finished = state.jobs.some((job) => ["queued", "running"].includes(job.state) &&
      !data.jobs.some((now) => now.id === job.id && now.state === job.state));
    state.jobs = data.jobs;
    drawJobs();
    if (data.changes !== state.changes || finished) {
      state.changes = data.changes;
      await refreshScript();
      if (state.view === "scene") await showScene();
      else if (state.view === "cast" || state.view === "attribution") { /* drawn by its own requests */ }
      else if (state.current) await showLine(state.current);
    }
  } catch (err) { say(err.message); }
}

// -- keyboard -------------------------------------------------------------------------------

function onKey(event) {
  // not while typing; a checkbox clicked keeps the focus but types nothing. A dialog just
  // closed (Escape, Start) keeps the focus in its text box until the browser moves it out,
  // later: a key pressed meanwhile is the page's
  const typing = event.target.closest("textarea, input:not([type=checkbox]), dialog");
  if (typing && !event.target.closest("dialog:not([open])")) return;
  if (event.ctrlKey || event.metaKey || event.altKey) return;
  const help = document.getElementById("help");
  const key = event.key;
  if (key === "Escape") { help.hidden = true; return; }
  if (!help.hidden && key !== "?") return;  // the list of keys covers the page: nothing behind it moves
  if (key === "c") { event.preventDefault(); if (state.view === "cast") leaveCasting(); else showCast(); return; }
  if (key === "t") { event.preventDefault(); if (state.view === "attribution") leaveCasting(); else showAttribution(); return; }
  if (state.view === "cast" && castKey(key)) { event.preventDefault(); return; }
  if (state.view === "attribution" && attributionKey(key)) { event.preventDefault(); return; }
  const actions = {
    j: () => step(1), ArrowDown: () => step(1), k: () => step(-1), ArrowUp: () => step(-1),
    " ": playPause, x: switchAB, a: () => markAB(0), b: () => markAB(1),
    n: () => openAction("render"), r: () => openAction("revise"), e: () => openAction("edit"),
    s: toggleScene, m: remixScene,
    f: () => { const box = document.getElementById("attention"); box.checked = !box.checked; applyFilter(); },
    "?": () => { help.hidden = !help.hidden; },
  };
  if (/^[1-9]$/.test(key)) { event.preventDefault(); select(Number(key)); return; }
  if (actions[key]) { event.preventDefault(); actions[key](); }
}

function start() {
  if (location.search.includes("token=")) history.replaceState(null, "", "/");  // kept in the cookie
  document.getElementById("keys").replaceChildren(
    ...KEYS.map(([key, what]) => el("tr", {}, el("td", {}, el("kbd", {}, key)), el("td", {}, what))));
  document.getElementById("help-button").addEventListener("click", () => {
    document.getElementById("help").hidden = false;
  });
  document.getElementById("help").addEventListener("click", (event) => {
    if (event.target.id === "help") event.target.hidden = true;
  });
  document.getElementById("attention").addEventListener("change", applyFilter);
  document.getElementById("action-form").addEventListener("submit", submitAction);
  document.getElementById("action-text").addEventListener("keydown", (event) => {
    if (event.key === "Enter" && (event.ctrlKey || event.metaKey)) {
      event.preventDefault();
      document.getElementById("action-ok").click();
    }
  });
  document.addEventListener("keydown", onKey);
  requestAnimationFrame(animate);
  poll().then(() => { if (!state.current) step(0); });
  setInterval(poll, 1500);
}

start();
