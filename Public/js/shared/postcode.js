// 우편번호 찾기 (`PostcodeSearch` on the server): the Kakao/Daum postcode service opens in a layer
// over the form; choosing an address fills the postcode and the address (the road address, with
// the neighbourhood and an apartment's name as the service suggests) and moves on to the flat and
// floor. The service's script is fetched on the first press, not with the page, so a slow or
// unreachable service never holds the page up; when it cannot load (within 8 s), a hint says to
// type the address and the postcode field takes the focus: the fields work without it.
//
// Conventions for every script under Public/js/: `data-*` attributes carry values that belong to
// one element; the single JSON config block (shared/config.js) carries values the whole page
// needs; no inline scripts or handlers (the Content-Security-Policy forbids them).
const box = document.getElementById('postcode-search');
const LOAD_WITHIN = 8000;

/** The road address as 도로명 with its extras, or the lot address if that is what was chosen. */
function chosenAddress(data) {
  if (data.userSelectedType === 'J') return data.jibunAddress || data.address;
  const extras = [];
  if (data.bname && /[동로가]$/.test(data.bname)) extras.push(data.bname);
  if (data.buildingName && data.apartment === 'Y') extras.push(data.buildingName);
  return (data.roadAddress || data.address) + (extras.length ? ` (${extras.join(', ')})` : '');
}

let loading = null;
/** The service's script, once: resolves when `daum.Postcode` is there, rejects when it cannot be. */
function loadService(src) {
  loading ??= new Promise((resolve, reject) => {
    if (window.daum?.Postcode) { resolve(); return; }
    const script = document.createElement('script');
    const timer = setTimeout(() => reject(new Error('timeout')), LOAD_WITHIN);
    script.src = src;
    script.addEventListener('load', () => {
      clearTimeout(timer);
      if (window.daum?.Postcode) resolve(); else reject(new Error('no service'));
    });
    script.addEventListener('error', () => { clearTimeout(timer); reject(new Error('unreachable')); });
    document.head.append(script);
  }).catch((error) => {
    loading = null; // a later press tries again
    throw error;
  });
  return loading;
}

if (box) {
  const field = (name) => document.getElementById(box.dataset[name]);
  const layer = document.getElementById('postcode-layer');
  const frame = document.getElementById('postcode-frame');
  const openButton = document.getElementById('postcode-open');
  const unavailable = document.getElementById('postcode-unavailable');
  const close = () => {
    layer.hidden = true;
    openButton.focus();
  };
  box.hidden = false;
  openButton.addEventListener('click', async () => {
    openButton.disabled = true;
    try {
      await loadService(box.dataset.script);
    } catch {
      unavailable.hidden = false;
      field('postcode').focus();
      return;
    } finally {
      openButton.disabled = false;
    }
    unavailable.hidden = true;
    layer.hidden = false;
    frame.replaceChildren();
    new window.daum.Postcode({
      width: '100%',
      height: '100%',
      oncomplete(data) {
        field('postcode').value = data.zonecode || '';
        field('address').value = chosenAddress(data);
        // A page may follow the address (the map's new place moves its pin there).
        field('address').dispatchEvent(new Event('change', { bubbles: true }));
        // Checkout: an address found is a new address.
        const newAddress = document.getElementById('address-new');
        if (newAddress && !newAddress.checked) {
          newAddress.checked = true;
          newAddress.dispatchEvent(new Event('change', { bubbles: true }));
        }
        layer.hidden = true;
        field('detail').focus();
      },
      onclose() { layer.hidden = true; },
    }).embed(frame);
  });
  document.getElementById('postcode-close').addEventListener('click', close);
  layer.addEventListener('keydown', (event) => { if (event.key === 'Escape') close(); });
}
