// The shop's main page: tapping a section header shows how many dishes it has (as the app does).
const toast = document.getElementById('section-toast');

document.querySelectorAll('.section-header').forEach((header) => {
  header.addEventListener('click', () => {
    const count = document.getElementById(header.getAttribute('aria-controls'));
    const showing = header.getAttribute('aria-expanded') === 'true';
    header.setAttribute('aria-expanded', String(!showing));
    count.hidden = showing;
    if (!showing && toast) {
      toast.textContent = header.dataset.countText;
      toast.classList.add('visible');
      clearTimeout(toast.hideTimer);
      toast.hideTimer = setTimeout(() => toast.classList.remove('visible'), 2500);
    }
  });
});
