// The web table: draws what the bot's server sends over the socket, and sends back what the player taps.
// Everything shown is set as text (never as HTML); the server decides what this viewer may see.
"use strict";

const tg = () => (window.Telegram && window.Telegram.WebApp) || null;
const $ = (id) => document.getElementById(id);
const launch = new URLSearchParams(location.hash.slice(1));
const query = new URLSearchParams(location.search);
const init = (tg() && tg().initData) || launch.get("tgWebAppData") || "";
let table = query.get("table") || "";

let state = null;
let picked = null; // a card picked to cover with, while the player chooses which attack card
let socket = null;
let wait = 500; // before the next reconnect, growing while the server cannot be reached
let myTurn = false;
let moving = false; // the socket closes to follow a rematch
let endsAt = null; // when the move in play times out, on this page's own clock (none: nothing runs)

function el(tag, className, text) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined) node.textContent = text;
  return node;
}

function theme() {
  const params = (tg() && tg().themeParams) || JSON.parse(launch.get("tgWebAppThemeParams") || "{}");
  for (const [key, value] of Object.entries(params)) {
    document.documentElement.style.setProperty("--tg-theme-" + key.replace(/_/g, "-"), value);
  }
}

function cardNode(card, extra) {
  const node = el("div", "card" + (card.red ? " red" : "") + (extra ? " " + extra : ""));
  node.dataset.code = card.code;
  const face = card.face.replace("\ufe0f", "");
  node.append(el("span", "rank", face.slice(0, -1)), el("span", "suit", face.slice(-1)));
  return node;
}

function send(message) {
  if (socket && socket.readyState === WebSocket.OPEN) socket.send(JSON.stringify(message));
}

function move(m) {
  picked = null;
  send({ move: m, version: state.game.version });
}

function toast(text) {
  const node = $("toast");
  node.textContent = text;
  node.hidden = false;
  clearTimeout(toast.timer);
  toast.timer = setTimeout(() => (node.hidden = true), 3000);
}

function ask(text, yes, no, onYes) {
  $("ask-text").textContent = text;
  $("ask-yes").textContent = yes;
  $("ask-no").textContent = no;
  $("ask").hidden = false;
  $("ask-yes").onclick = () => { $("ask").hidden = true; onYes(); };
  $("ask-no").onclick = () => { $("ask").hidden = true; };
}

function drawSeats(game) {
  const seats = $("seats");
  seats.replaceChildren();
  for (const seat of game.seats) {
    let marks = "";
    if (seat.defender) marks += "🛡 ";
    if (seat.auto) marks += "🤖 ";
    if (seat.place) marks += "🏁" + seat.place + " ";
    const node = el("div", "seat" + (seat.to_act ? " to-act" : "") + (seat.you ? " you" : ""));
    node.append(el("span", "name", marks + seat.name), el("span", "count", "🂠" + seat.cards));
    seats.append(node);
  }
}

function tick() {
  const clock = $("clock");
  const left = endsAt === null ? null : Math.max(0, Math.ceil((endsAt - performance.now()) / 1000));
  clock.textContent = left === null ? "" : "⏳ " + left;
  clock.classList.toggle("low", left !== null && left <= 10);
}

function drawTable(game) {
  $("trump").textContent = game.lines.trump;
  $("trump").classList.toggle("red", game.trump_red);
  $("talon").textContent = game.lines.talon;
  $("discard").textContent = game.lines.discard;
  tick();
  const targets = new Set();
  if (picked) for (const m of picked.moves) if (m.on !== undefined) targets.add(m.on);
  const area = $("table");
  area.replaceChildren();
  game.pairs.forEach((pair, index) => {
    const node = el("div", "pair" + (targets.has(index) ? " target" : ""));
    node.dataset.index = index;
    node.append(cardNode(pair.attack, "attack"));
    if (pair.cover) node.append(cardNode(pair.cover, "cover"));
    if (targets.has(index)) {
      node.onclick = () => move(picked.moves.find((m) => m.on === index).move);
    }
    area.append(node);
  });
  const recent = $("recent");
  recent.replaceChildren(...game.recent.map((line) => el("li", "", line)));
}

function drawHand(hand, labels) {
  const area = $("hand");
  area.replaceChildren();
  for (const card of hand.cards) {
    const legal = card.moves.length > 0;
    const node = cardNode(card, (legal ? "legal" : "") + (picked && picked.code === card.code ? " picked" : ""));
    if (legal) {
      node.onclick = () => {
        if (card.moves.length === 1) return move(card.moves[0].move);
        picked = picked && picked.code === card.code ? null : card; // a card that covers several: which?
        draw();
      };
    }
    area.append(node);
  }
  const buttons = $("buttons");
  buttons.replaceChildren();
  if (picked) {
    const back = el("button", "quiet", labels.cancel);
    back.onclick = () => { picked = null; draw(); };
    buttons.append(back);
    return;
  }
  for (const button of hand.buttons) {
    const node = el("button", "", button.label);
    node.dataset.move = button.move;
    node.onclick = () => move(button.move);
    buttons.append(node);
  }
  if (hand.auto) {
    const back = el("button", "", labels.back);
    back.onclick = () => send({ back: true });
    buttons.append(back);
  }
  if (hand.may_concede) {
    const concede = el("button", "quiet", labels.concede);
    concede.onclick = () => ask(labels.concede_ask, labels.concede_yes, labels.concede_no, () => send({ concede: "yes" }));
    buttons.append(concede);
  }
}

function drawLobby(lobby, labels) {
  const seats = $("seats");
  seats.hidden = false;
  seats.replaceChildren(...lobby.players.map((name) => el("div", "seat", name)));
  const buttons = $("buttons");
  buttons.hidden = false;
  buttons.replaceChildren();
  for (const action of ["join", "start"]) {
    if (!lobby[action]) continue;
    const node = el("button", action === "start" ? "" : "quiet", labels[action]);
    node.dataset.lobby = action;
    node.onclick = () => send({ lobby: action });
    buttons.append(node);
  }
}

function draw() {
  const s = state;
  const labels = s.labels;
  const game = s.game;
  for (const id of ["seats", "table", "recent", "prompt", "hand", "buttons", "top"]) $(id).hidden = !game;
  $("notice").hidden = !(s.notice || s.lobby || (game && s.seat === null));
  if (s.notice) $("notice").textContent = s.notice;
  else if (s.lobby) $("notice").textContent = s.lobby.notice;
  else if (game && s.seat === null) $("notice").textContent = labels.watching;
  $("result").hidden = true;
  if (s.lobby) drawLobby(s.lobby, labels);
  if (!game) return;
  if (picked && !(s.hand && s.hand.cards.some((c) => c.code === picked.code && c.moves.length > 1))) picked = null;
  drawSeats(game);
  drawTable(game);
  $("prompt").textContent = picked ? labels.choose_attack : s.hand ? s.hand.prompt : "";
  if (s.hand) drawHand(s.hand, labels);
  else { $("hand").replaceChildren(); $("buttons").replaceChildren(); }
  const result = $("result");
  result.hidden = !s.result;
  result.replaceChildren(...(s.result || []).map((line) => el("p", "", line)));
  if (s.rematch) {
    const again = el("button", "", labels.rematch);
    again.dataset.lobby = "rematch";
    again.onclick = () => send({ lobby: "rematch" });
    result.append(again);
  }
  const turn = Boolean(s.hand && game.seats[s.seat] && game.seats[s.seat].to_act);
  if (turn && !myTurn && tg() && tg().HapticFeedback) tg().HapticFeedback.notificationOccurred("warning");
  myTurn = turn;
}

function connect() {
  const scheme = location.protocol === "https:" ? "wss:" : "ws:";
  const url = scheme + "//" + location.host + location.pathname.replace(/\/?$/, "/") + "socket?init=" +
    encodeURIComponent(init) + "&table=" + encodeURIComponent(table);
  socket = new WebSocket(url);
  socket.onopen = () => {
    wait = 500;
    $("offline").hidden = true;
    send({ visible: !document.hidden });
  };
  socket.onmessage = (event) => {
    const message = JSON.parse(event.data);
    if (message.type === "state") {
      state = message;
      // The seconds left as the server sent them, counted on from now by this page (its clock may differ).
      const left = message.game ? message.game.left : undefined;
      endsAt = typeof left === "number" ? performance.now() + left * 1000 : null;
      document.documentElement.lang = message.lang || document.documentElement.lang;
      draw();
    } else if (message.type === "refused") {
      toast(message.text);
    } else if (message.type === "moved") { // a rematch: the page follows the players to the new table
      table = String(message.table);
      moving = true;
      socket.close();
    }
  };
  socket.onclose = () => {
    socket = null;
    if (moving) { moving = false; state = null; picked = null; return connect(); }
    if (state) { $("offline").textContent = state.labels.offline; $("offline").hidden = false; }
    fetch(url.replace(/^ws/, "http")).then((answer) => {
      if (answer.status === 401 || answer.status === 403 || answer.status === 404) return answer.json().then(refused);
      setTimeout(connect, wait);
      wait = Math.min(wait * 2, 8000);
    }, () => { setTimeout(connect, wait); wait = Math.min(wait * 2, 8000); });
  };
}

function refused(answer) {
  document.body.dataset.refused = answer.error;
  $("notice").textContent = answer.text || answer.error;
  $("notice").hidden = false;
  for (const id of ["seats", "table", "recent", "prompt", "hand", "buttons", "top", "offline"]) $(id).hidden = true;
}

document.addEventListener("visibilitychange", () => send({ visible: !document.hidden }));
window.addEventListener("load", () => {
  if (tg()) { tg().ready(); tg().expand(); tg().onEvent("themeChanged", theme); }
  theme();
});
theme();
connect();
setInterval(tick, 500);
