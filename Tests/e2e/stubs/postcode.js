// A stand-in for the Kakao/Daum postcode service's script (postcode.v2.js), for the browser tests:
// the same `daum.Postcode({ oncomplete, onclose, width, height }).embed(element)` the pages use,
// with a search box and results drawn in the page instead of Kakao's frame. Its `data` has the
// fields the real service answers with (zonecode, roadAddress, jibunAddress, userSelectedType,
// bname, buildingName, apartment).
(function () {
  const ADDRESSES = [
    { zonecode: '04524', roadAddress: '서울특별시 중구 세종대로 110', jibunAddress: '서울특별시 중구 태평로1가 31', bname: '태평로1가', buildingName: '서울특별시청', apartment: 'N' },
    { zonecode: '06236', roadAddress: '서울특별시 강남구 테헤란로 152', jibunAddress: '서울특별시 강남구 역삼동 737', bname: '역삼동', buildingName: '강남파이낸스센터', apartment: 'N' },
    { zonecode: '03925', roadAddress: '서울특별시 마포구 월드컵북로 396', jibunAddress: '서울특별시 마포구 상암동 1605', bname: '상암동', buildingName: '상암아파트', apartment: 'Y' },
  ];
  class Postcode {
    constructor(options) { this.options = options; }
    embed(element) {
      const input = document.createElement('input');
      input.type = 'search';
      input.id = 'stub-postcode-query';
      input.setAttribute('aria-label', '도로명, 건물명, 지번');
      const list = document.createElement('ul');
      list.id = 'stub-postcode-results';
      input.addEventListener('input', () => {
        list.replaceChildren(...ADDRESSES.filter((a) => input.value && (a.roadAddress + a.buildingName).includes(input.value)).map((a) => {
          const item = document.createElement('li');
          const pick = document.createElement('button');
          pick.type = 'button';
          pick.textContent = `${a.zonecode} ${a.roadAddress} (${a.buildingName})`;
          pick.addEventListener('click', () => this.options.oncomplete({ ...a, address: a.roadAddress, userSelectedType: 'R' }));
          item.append(pick);
          return item;
        }));
      });
      element.append(input, list);
      input.focus();
    }
  }
  window.daum = { Postcode };
})();
