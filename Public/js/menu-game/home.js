// Home tab: "○○ 어때요?" with a button for another random menu.
import { api } from '../shared/api.js';
import { t } from '../shared/config.js';
import { imagePath, nameSizeClass } from './common.js';

const button = document.getElementById('another-menu');
const image = document.getElementById('random-image');
const question = document.getElementById('random-question');

button?.addEventListener('click', async () => {
  button.disabled = true;
  try {
    const menu = await api('GET', '/api/v1/menu-game/menus/random');
    image.src = imagePath(menu.imageURL);
    question.textContent = t('menu_game.home.question', { name: menu.displayName });
    question.className = `random-question ${nameSizeClass(menu.displayName)}`;
  } catch (error) {
    question.textContent = error.message;
  } finally {
    button.disabled = false;
  }
});
