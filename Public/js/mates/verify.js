// /mates/start: send a 6-digit code to a phone number or an email address, count down the time
// it stays valid, resend it (the countdown starts again from the new code's expiry), and confirm
// it. Wrong, expired and used-up codes say so beside the box; a confirmed code opens the profile.
//
// Conventions for every script under Public/js/: `data-*` attributes carry values that belong to
// one element; the single JSON config block (shared/config.js) carries values the whole page
// needs; no inline scripts or handlers (the Content-Security-Policy forbids them).
import { api } from '../shared/api.js';
import { config, t } from '../shared/config.js';
import { say } from '../shared/dom.js';
import { API, fieldError } from './common.js';

const sendForm = document.getElementById('send-form');
const confirmForm = document.getElementById('confirm-form');
const destinationField = document.getElementById('destination');
const destinationLabel = document.getElementById('destination-label');
const sendError = document.getElementById('send-error');
const sendButton = document.getElementById('send-code');
const codeField = document.getElementById('code');
const codeError = document.getElementById('code-error');
const countdown = document.getElementById('countdown');
const sentTo = document.getElementById('sent-to');
const resendButton = document.getElementById('resend-code');
const confirmButton = document.getElementById('confirm-code');
const changeButton = document.getElementById('change-destination');

/** What was sent last: the channel, the destination as typed, when the code expires and when a new one may go. */
let sent = null;
let ticker = null;

function channel() {
  return sendForm.querySelector('input[name=channel]:checked')?.value || 'phone';
}

/** The field follows the channel: a phone keypad or an email keyboard, and their labels. */
function showChannel() {
  const email = channel() === 'email';
  destinationField.type = email ? 'email' : 'tel';
  destinationField.setAttribute('inputmode', email ? 'email' : 'tel');
  destinationField.setAttribute('autocomplete', email ? 'email' : 'tel');
  destinationField.placeholder = email ? 'name@example.com' : '010-1234-5678';
  destinationLabel.textContent = t(email ? 'mates.js.verify.email_label' : 'mates.js.verify.phone_label');
  fieldError(sendError, '', destinationField);
}

function minutesAndSeconds(seconds) {
  const whole = Math.max(0, Math.ceil(seconds));
  return `${Math.floor(whole / 60)}:${String(whole % 60).padStart(2, '0')}`;
}

/** One tick: the time left on the code, and whether "resend" may be pressed yet. */
function tick() {
  if (!sent) return;
  const now = Date.now();
  const left = (sent.expiresAt - now) / 1000;
  const resendIn = (sent.resendAt - now) / 1000;
  if (left > 0) {
    countdown.textContent = minutesAndSeconds(left);
    countdown.classList.remove('expired');
  } else {
    countdown.textContent = t('mates.js.verify.expired_short');
    countdown.classList.add('expired');
  }
  resendButton.disabled = resendIn > 0;
  resendButton.textContent = resendIn > 0
    ? t('mates.js.verify.resend_in', { seconds: Math.ceil(resendIn) })
    : t('mates.js.verify.resend');
}

/** Starts the countdown afresh from the answer of a send: a resend never leaves the old timer running. */
function startCountdown(answer) {
  clearInterval(ticker);
  sent = {
    channel: answer.channel,
    destination: destinationField.value.trim(),
    expiresAt: new Date(answer.expiresAt).getTime() || Date.now() + (config.codeSeconds || 300) * 1000,
    resendAt: Date.now() + (answer.resendAfterSeconds ?? config.resendSeconds ?? 60) * 1000,
  };
  tick();
  ticker = setInterval(tick, 500);
}

async function sendCode() {
  const destination = destinationField.value.trim();
  if (!destination) {
    fieldError(sendError, t('mates.js.verify.destination_missing'), destinationField);
    destinationField.focus();
    return false;
  }
  sendButton.disabled = true;
  resendButton.disabled = true;
  try {
    const answer = await api('POST', `${API}/verification`, { channel: channel(), destination });
    fieldError(sendError, '', destinationField);
    fieldError(codeError, '', codeField);
    startCountdown(answer);
    sentTo.textContent = t('mates.js.verify.sent_to', { destination: answer.destination });
    return true;
  } catch (error) {
    // Refused before anything was sent (a bad number, too soon, too many today): say so where it was typed.
    if (confirmForm.hidden) {
      fieldError(sendError, error.message, destinationField);
      destinationField.focus();
    } else {
      fieldError(codeError, error.message);
      tick();
    }
    return false;
  } finally {
    sendButton.disabled = false;
  }
}

sendForm.addEventListener('change', (event) => {
  if (event.target.name === 'channel') showChannel();
});

sendForm.addEventListener('submit', async (event) => {
  event.preventDefault();
  if (!(await sendCode())) return;
  sendForm.hidden = true;
  confirmForm.hidden = false;
  codeField.value = '';
  codeField.focus();
});

resendButton.addEventListener('click', async () => {
  if (await sendCode()) {
    codeField.value = '';
    codeField.focus();
    say(t('mates.js.verify.resent'));
  }
});

changeButton.addEventListener('click', () => {
  clearInterval(ticker);
  sent = null;
  confirmForm.hidden = true;
  sendForm.hidden = false;
  destinationField.focus();
});

codeField.addEventListener('input', () => {
  // Digits only, six at most (a pasted "123 456" becomes 123456).
  const digits = codeField.value.replace(/\D/g, '').slice(0, 6);
  if (digits !== codeField.value) codeField.value = digits;
  fieldError(codeError, '', codeField);
});

confirmForm.addEventListener('submit', async (event) => {
  event.preventDefault();
  const code = codeField.value.trim();
  if (!/^\d{6}$/.test(code)) {
    fieldError(codeError, t('mates.js.verify.code_format'), codeField);
    codeField.focus();
    return;
  }
  if (sent && Date.now() >= sent.expiresAt) {
    fieldError(codeError, t('mates.js.verify.expired'), codeField);
    resendButton.focus();
    return;
  }
  confirmButton.disabled = true;
  try {
    await api('POST', `${API}/verification/confirm`, { channel: sent?.channel, destination: sent?.destination, code });
    clearInterval(ticker);
    say(t('mates.js.verify.done'));
    location.assign('/mates/profile?welcome=1');
  } catch (error) {
    fieldError(codeError, error.message, codeField);
    codeField.select();
    confirmButton.disabled = false;
  }
});

showChannel();
