// The chat's menu: a menu game together, end and review, report, cancel the match. Ending and
// cancelling ask first (the page's <dialog>s); the game's group is hosted by this browser's device.
//
// Conventions for every script under Public/js/: `data-*` attributes carry values that belong to
// one element; the single JSON config block (shared/config.js) carries values the whole page
// needs; no inline scripts or handlers (the Content-Security-Policy forbids them).
import { api } from '../shared/api.js';
import { say } from '../shared/dom.js';
import { API } from './common.js';

/** Makes the menu of match `matchId` work; `isOpen()` says whether the match still runs. */
export function setUpChatMenu(matchId, isOpen) {
  const menuButton = document.getElementById('chat-menu-button');
  const menu = document.getElementById('chat-menu');

  function closeMenu({ focus = false } = {}) {
    menu.hidden = true;
    menuButton.setAttribute('aria-expanded', 'false');
    if (focus) menuButton.focus();
  }

  menuButton.addEventListener('click', () => {
    const opening = menu.hidden;
    menu.hidden = !opening;
    menuButton.setAttribute('aria-expanded', String(opening));
    if (opening) menu.querySelector('button:not([disabled])')?.focus();
  });

  document.addEventListener('keydown', (event) => {
    if (event.key === 'Escape' && !menu.hidden) closeMenu({ focus: true });
  });
  document.addEventListener('click', (event) => {
    if (!menu.hidden && !menu.contains(event.target) && event.target !== menuButton) closeMenu();
  });

  /** Opens a confirmation dialog; resolves to whether "yes" was pressed. */
  function confirm(name) {
    const dialog = document.getElementById(`${name}-dialog`);
    return new Promise((resolve) => {
      const finish = (answer) => {
        dialog.close();
        resolve(answer);
      };
      document.getElementById(`${name}-yes`).onclick = () => finish(true);
      document.getElementById(`${name}-no`).onclick = () => finish(false);
      dialog.oncancel = () => resolve(false);
      dialog.showModal();
    });
  }

  const gameButton = document.getElementById('menu-game');
  gameButton.addEventListener('click', async () => {
    closeMenu();
    gameButton.disabled = true;
    try {
      // The browser's device token (config.device, sent by api.js) hosts the group.
      const started = await api('POST', `${API}/match/menu-game`);
      location.assign(started.link);
    } catch (error) {
      say(error.message);
      gameButton.disabled = !isOpen();
    }
  });

  document.getElementById('menu-review').addEventListener('click', async () => {
    closeMenu();
    if (isOpen()) {
      // A review comes after the meet-up: reviewing ends the match for both.
      if (!(await confirm('finish'))) return;
      try {
        await api('POST', `${API}/match/finish`);
      } catch (error) {
        say(error.message);
        return;
      }
    }
    location.assign(`/mates/review/${matchId}`);
  });

  document.getElementById('menu-report').addEventListener('click', () => {
    closeMenu();
    location.assign(`/mates/report/${matchId}`);
  });

  document.getElementById('menu-cancel').addEventListener('click', async () => {
    closeMenu();
    if (!(await confirm('cancel'))) return;
    try {
      await api('POST', `${API}/match/dodge`);
      location.assign('/mates');
    } catch (error) {
      say(error.message);
    }
  });
}
