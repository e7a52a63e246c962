// The game: nine cards in a stack, three visible. Like / hate / don't care send the top card
// flying right / left / down with a turn; "previous" brings the last card back from where it
// flew. Swipes do the same on touch screens, and the arrow keys on a keyboard. The last answer
// submits: a solo game goes to its result, a group game to the waiting room.
import { api, ApiError } from '../shared/api.js';
import { config, t } from '../shared/config.js';
import { setCookie } from '../shared/dom.js';

const game = document.getElementById('game');
const stack = document.getElementById('card-stack');
const cards = [...stack.querySelectorAll('.game-card')];
const yesNoButtons = game.querySelector('.yesno-buttons');
const choiceButtons = game.querySelector('.choice-buttons');
const previousButton = document.getElementById('previous-card');
const progress = document.getElementById('game-progress');
const progressFill = progress.querySelector('.progress-fill');
const status = document.getElementById('game-status');

/** One entry per answered card: `{ value, flight }`; value true / false / null (don't care) or a list. */
const answers = [];
let current = 0;
let submitting = false;

const FLIGHTS = { yes: 'right', no: 'left', skip: 'down', next: 'right' };
const POSITIONS = ['pos-0', 'pos-1', 'pos-2', 'pos-hidden', 'gone', 'fly-right', 'fly-left', 'fly-down'];

function render() {
  cards.forEach((card, index) => {
    card.classList.remove(...POSITIONS);
    if (index < current) {
      card.classList.add('gone', `fly-${answers[index].flight}`);
    } else {
      const depth = index - current;
      card.classList.add(depth <= 2 ? `pos-${depth}` : 'pos-hidden');
    }
    const isTop = index === current;
    card.toggleAttribute('inert', !isTop);
    card.setAttribute('aria-hidden', String(!isTop));
  });
  const top = cards[current];
  const isChoice = top?.dataset.kind === 'choice';
  yesNoButtons.hidden = isChoice;
  choiceButtons.hidden = !isChoice;
  previousButton.disabled = current === 0 || submitting;
  progress.setAttribute('aria-valuenow', String(current));
  progressFill.style.transform = `scaleX(${current / cards.length})`;
}

function selectedChoices(card) {
  return [...card.querySelectorAll('.choice-tile[aria-pressed=true]')].map((tile) => tile.dataset.choice);
}

/** Records the answer to the top card and sends it flying. */
function answer(kind) {
  if (submitting || current >= cards.length) return;
  const card = cards[current];
  let value;
  let flight = FLIGHTS[kind];
  if (card.dataset.kind === 'yesno') {
    if (!['yes', 'no', 'skip'].includes(kind)) return;
    value = kind === 'yes' ? true : kind === 'no' ? false : null;
  } else {
    if (!['next', 'skip'].includes(kind)) return;
    if (kind === 'skip') card.querySelectorAll('.choice-tile').forEach((tile) => tile.setAttribute('aria-pressed', 'false'));
    value = kind === 'skip' ? [] : selectedChoices(card);
    if (value.length === 0) flight = 'down';  // nothing chosen is "don't care"
  }
  answers[current] = { value, flight };
  current += 1;
  render();
  if (current === cards.length) {
    submit();
  } else {
    focusAnswerBar();
  }
}

function previous() {
  if (submitting || current === 0) return;
  current -= 1;
  answers.length = current;
  render();
  focusAnswerBar();
}

/** Keeps keyboard focus on the answer buttons as the cards change. */
function focusAnswerBar() {
  const bar = cards[current]?.dataset.kind === 'choice' ? choiceButtons : yesNoButtons;
  if (game.contains(document.activeElement) && !bar.contains(document.activeElement)) {
    bar.querySelector('button')?.focus();
  }
}

/** The answers as the API takes them (absent = don't care). */
function gameAnswer() {
  const result = {};
  cards.forEach((card, index) => {
    const question = card.dataset.question;
    const { value } = answers[index];
    if (card.dataset.kind === 'yesno') {
      if (value !== null) result[question] = value;
    } else if (question === 'main') {
      // "None of these" sets all three to no; choosing some says yes to those and no to the rest.
      if (value.includes('none')) {
        Object.assign(result, { rice: false, noodle: false, soup: false });
      } else if (value.length) {
        for (const main of ['rice', 'noodle', 'soup']) result[main] = value.includes(main);
      }
    } else if (question === 'nation' && value.length) {
      result.nation = value;
    }
  });
  return result;
}

async function submit() {
  submitting = true;
  render();
  status.textContent = t('menu_game.game.submitting');
  const body = { gameAnswer: gameAnswer(), dislikedFoods: config.disliked || [] };
  try {
    if (config.mode === 'group') {
      await api('PUT', `/api/v1/menu-game/groups/${config.pin}/submission`, body);
      setCookie('wwe_waiting', config.pin, 24 * 3600);
      location.assign(`/play/groups/${config.pin}/wait`);
    } else {
      const result = await api('POST', '/api/v1/menu-game/solo', body);
      sessionStorage.setItem('wwe.soloResult', JSON.stringify(result));
      location.assign('/play/result');
    }
  } catch (error) {
    if (!(error instanceof ApiError)) throw error;
    if (error.code === 'game_closed') {
      location.assign(`/play/groups/${config.pin}/result`);
      return;
    }
    status.textContent = error.message;
    submitting = false;
    render();
  }
}

// Buttons.
game.querySelectorAll('.answer-button').forEach((button) => {
  button.addEventListener('click', () => answer(button.dataset.answer));
});
previousButton.addEventListener('click', previous);

// Multiple-choice tiles: "none of these" excludes the others.
stack.querySelectorAll('.choice-tile').forEach((tile) => {
  tile.addEventListener('click', () => {
    const pressed = tile.getAttribute('aria-pressed') !== 'true';
    tile.setAttribute('aria-pressed', String(pressed));
    if (!pressed) return;
    const siblings = [...tile.parentElement.querySelectorAll('.choice-tile')].filter((other) => other !== tile);
    for (const other of siblings) {
      if (tile.dataset.choice === 'none' || other.dataset.choice === 'none') other.setAttribute('aria-pressed', 'false');
    }
  });
});

// Arrow keys: → like / next, ← hate, ↓ don't care, Backspace previous.
document.addEventListener('keydown', (event) => {
  if (event.altKey || event.ctrlKey || event.metaKey || event.target.closest?.('input, textarea, select')) return;
  const isChoice = cards[current]?.dataset.kind === 'choice';
  const actions = { ArrowRight: isChoice ? 'next' : 'yes', ArrowLeft: isChoice ? null : 'no', ArrowDown: 'skip' };
  if (event.key in actions && actions[event.key]) {
    event.preventDefault();
    answer(actions[event.key]);
  } else if (event.key === 'Backspace') {
    event.preventDefault();
    previous();
  }
});

// Swipes on the top card (touch, pen or a dragged mouse).
const SWIPE_DISTANCE = 90;
let drag = null;
stack.addEventListener('pointerdown', (event) => {
  const card = cards[current];
  if (!card || submitting || !card.contains(event.target) || event.target.closest('button')) return;
  drag = { card, x: event.clientX, y: event.clientY, id: event.pointerId };
  card.setPointerCapture(event.pointerId);
  card.classList.add('dragging');
});
stack.addEventListener('pointermove', (event) => {
  if (!drag || event.pointerId !== drag.id) return;
  const dx = event.clientX - drag.x;
  const dy = Math.max(0, event.clientY - drag.y);
  drag.card.style.transform = `translate(${dx}px, ${dy}px) rotate(${dx / 16}deg)`;
});
function endDrag(event) {
  if (!drag || event.pointerId !== drag.id) return;
  const { card } = drag;
  const dx = event.clientX - drag.x;
  const dy = event.clientY - drag.y;
  drag = null;
  card.classList.remove('dragging');
  card.style.transform = '';
  if (event.type === 'pointercancel') return;
  const isChoice = card.dataset.kind === 'choice';
  if (dx > SWIPE_DISTANCE && Math.abs(dx) > dy) answer(isChoice ? 'next' : 'yes');
  else if (dx < -SWIPE_DISTANCE && -dx > dy && !isChoice) answer('no');
  else if (dy > SWIPE_DISTANCE && dy > Math.abs(dx)) answer('skip');
}
stack.addEventListener('pointerup', endDrag);
stack.addEventListener('pointercancel', endDrag);

game.classList.add('ready');
render();
