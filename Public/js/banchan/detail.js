// A dish's page: the quantity stepper (− off at the minimum, + off at the maximum or the stock)
// with the total updating live, and the dots under the paging thumbnails.
import '../shared/share-button.js';

const form = document.getElementById('order-form');
const input = document.getElementById('quantity');
const down = document.getElementById('quantity-down');
const up = document.getElementById('quantity-up');
const total = document.getElementById('order-total');
const won = new Intl.NumberFormat('ko-KR');
// Prices as the page's language writes them (the server's `Request.won`): 12,900원 or ₩12,900.
const price = (amount) => (document.documentElement.lang === 'ko' ? `${won.format(amount)}원` : `₩${won.format(amount)}`);

function clamp(value) {
  const min = Number(input.min), max = Number(input.max);
  return Math.min(max, Math.max(min, Number.isFinite(value) ? Math.round(value) : min));
}

function update() {
  const quantity = clamp(Number(input.value));
  down.disabled = quantity <= Number(input.min);
  up.disabled = quantity >= Number(input.max);
  total.textContent = price(quantity * Number(form.dataset.price));
}

if (form && input) {
  down.addEventListener('click', () => { input.value = clamp(Number(input.value) - 1); update(); });
  up.addEventListener('click', () => { input.value = clamp(Number(input.value) + 1); update(); });
  input.addEventListener('input', update);
  input.addEventListener('change', () => { input.value = clamp(Number(input.value)); update(); });
  update();
}

// Thumbnails page horizontally (scroll snap); the dots follow, and arrow keys page too.
const thumbs = document.getElementById('thumbs');
const dots = [...document.querySelectorAll('.thumb-dots li')];
if (thumbs && dots.length) {
  const current = () => Math.round(thumbs.scrollLeft / thumbs.clientWidth);
  thumbs.addEventListener('scroll', () => {
    const index = current();
    dots.forEach((dot, i) => dot.classList.toggle('current', i === index));
  }, { passive: true });
  thumbs.addEventListener('keydown', (event) => {
    const step = { ArrowRight: 1, ArrowLeft: -1 }[event.key];
    if (!step) return;
    event.preventDefault();
    thumbs.scrollTo({ left: (current() + step) * thumbs.clientWidth, behavior: 'smooth' });
  });
}
