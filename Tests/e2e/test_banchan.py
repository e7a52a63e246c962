"""The banchan shop (배민찬) as a shopper uses it: browse the sections, open a dish, pick a
quantity, fill the cart, check out (where it goes, how it travels, how to pay), pay with the test
gateway, the confirmation and the receipt, read the order history; the address book; the
stepper's limits; cancelling."""
import json
import re

import pytest

from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support import expected_conditions as EC

from conftest import ROOT, fill, no_horizontal_overflow, shot, wait_for

CATALOG = json.loads((ROOT / "Resources" / "catalogs" / "banchan.json").read_text(encoding="utf-8"))


def won(amount):
    return f"{amount:,}원"


def dish(predicate):
    return next(d for d in CATALOG if predicate(d))


def click(driver, selector):
    """Waits until the element is clickable, scrolls it to the middle (clear of the sticky header:
    checkout is a long form) and clicks."""
    element = wait_for(driver, EC.element_to_be_clickable((By.CSS_SELECTOR, selector)))
    driver.execute_script("arguments[0].scrollIntoView({block: 'center'})", element)
    element.click()


ORDER_PAGE = r"/shop/orders/[0-9a-f-]{36}$"
# Where the orders in these tests go, unless a test says otherwise.
HOME = {"recipient": "김반찬", "phone": "010-1234-5678", "postcode": "04524", "address": "서울특별시 중구 세종대로 110",
        "addressDetail": "101동 1001호"}


def address_line(address):
    """The address on one line, as the pages show it: `(04524) 서울특별시 중구 세종대로 110 101동 1001호`."""
    parts = [f"({address['postcode']})" if address.get("postcode") else None, address["address"], address.get("addressDetail") or None]
    return " ".join(p for p in parts if p)


def fill_new_address(browser, address):
    for name in ("recipient", "phone", "postcode", "address", "addressDetail"):
        fill(browser, f"checkout-{name}", address.get(name, ""))


def check_out(browser, slot="dawn", address=HOME):
    """From the cart: on to checkout, the new address typed when it asks for one (no saved
    address is chosen), `slot` (dawn/parcel) chosen, the order placed: ends on the order's page,
    awaiting payment."""
    click(browser, "#to-checkout")
    wait_for(browser, EC.url_contains("/shop/checkout"))
    if browser.find_element(By.ID, "checkout-recipient").is_displayed():
        fill_new_address(browser, address)
    click(browser, f"#slot-{slot}")
    click(browser, "#place-order")
    wait_for(browser, EC.url_matches(ORDER_PAGE))


def visited(driver):
    """The pages this browser has loaded, from the server's point of view: every top-level
    navigation's URL, as Chromium's DevTools history lists it."""
    history = driver.execute_cdp_cmd("Page.getNavigationHistory", {})
    return {entry["url"].split("#")[0] for entry in history["entries"] if entry["url"].startswith("http")}


def pay_to_complete(browser):
    """On an order's page awaiting payment: pays with the test gateway, which leads to "주문이 완료됐어요"."""
    click(browser, "#pay-test")
    wait_for(browser, EC.url_matches(r"/shop/orders/[0-9a-f-]{36}/complete$"))
    wait_for(browser, lambda d: d.find_element(By.TAG_NAME, "h1").text == "주문이 완료됐어요")


def test_browse_detail_quantity_cart_order_and_history(server, browser):
    browser.get(server.url + "/shop")
    assert browser.find_element(By.TAG_NAME, "h1").text == "반찬가게"
    sections = [h.text for h in browser.find_elements(By.CSS_SELECTOR, ".section-header > span:first-child")]
    assert sections == ["메인요리", "국·찌개", "밑반찬"]
    main_dishes = [d for d in CATALOG if d["section"] == "main"]
    assert len(browser.find_elements(By.CSS_SELECTOR, "#section-main .dish-card")) == len(main_dishes)

    # Tapping a section header tells how many dishes it has.
    header = browser.find_element(By.CSS_SELECTOR, "#section-main .section-header")
    header.click()
    assert header.get_attribute("aria-expanded") == "true"
    assert browser.find_element(By.ID, "count-main").text == f"{len(main_dishes)}개"
    wait_for(browser, lambda d: f"{len(main_dishes)}개의 상품" in d.find_element(By.ID, "section-toast").text)
    assert no_horizontal_overflow(browser)
    shot(browser, "01-sections")

    first = main_dishes[0]
    card = browser.find_element(By.CSS_SELECTOR, "#section-main .dish-card")
    assert won(first["salePrice"]) in card.text
    if first["originalPrice"]:
        assert won(first["originalPrice"]) in card.find_element(By.CSS_SELECTOR, "del").text
    card.find_element(By.CSS_SELECTOR, "a.dish-title").click()

    wait_for(browser, EC.url_contains(f"/shop/dishes/{first['hash']}"))
    assert browser.find_element(By.ID, "dish-title").text == first["title"]
    assert len(browser.find_elements(By.CSS_SELECTOR, "#thumbs img")) == first["thumbCount"]
    assert browser.find_element(By.ID, "delivery-fee").text == "2,500원 (40,000원 이상 구매 시 무료)"
    # On the phone "장바구니 담기" is on screen without scrolling, above the shop's tabs; the way back
    # names the dish's section.
    bar = browser.execute_script(
        "const b = document.getElementById('add-to-cart').getBoundingClientRect();"
        " const t = document.querySelector('.tab-bar').getBoundingClientRect(); return [b.top, b.bottom, t.top, innerHeight];")
    assert 0 < bar[0] and bar[1] <= bar[2] <= bar[3], bar
    assert browser.find_element(By.ID, "back-to-shop").text == "← 메인요리 더 보기"
    assert browser.find_element(By.CSS_SELECTOR, ".tab-bar a[aria-current=page]").text.endswith("반찬")
    shot(browser, "02-detail")

    # The thumbnails page sideways and the dots follow.
    browser.find_element(By.ID, "thumbs").send_keys(Keys.ARROW_RIGHT)
    wait_for(browser, lambda d: d.find_elements(By.CSS_SELECTOR, ".thumb-dots li")[1].get_attribute("class") == "current")

    down, up = browser.find_element(By.ID, "quantity-down"), browser.find_element(By.ID, "quantity-up")
    assert not down.is_enabled(), "− is off at the minimum"
    click(browser, "#quantity-up")  # scrolled to, as a person would (the stepper sits below the gallery)
    click(browser, "#quantity-up")
    assert browser.find_element(By.ID, "quantity").get_attribute("value") == "3"
    assert browser.find_element(By.ID, "order-total").text == won(first["salePrice"] * 3)
    assert down.is_enabled()
    browser.execute_script("document.getElementById('add-to-cart').scrollIntoView({block: 'center'})")
    shot(browser, "03-quantity")
    click(browser, "#add-to-cart")

    wait_for(browser, EC.url_contains("/shop/cart"))
    assert first["title"] in browser.find_element(By.CSS_SELECTOR, "[role=status]").text
    assert "(를)" not in browser.find_element(By.CSS_SELECTOR, "[role=status]").text
    items_total = first["salePrice"] * 3
    fee = 0 if items_total >= 40_000 else 2_500
    assert browser.find_element(By.ID, "items-total").text == won(items_total)
    assert browser.find_element(By.ID, "cart-delivery-fee").text == won(fee)
    assert browser.find_element(By.ID, "cart-total").text == won(items_total + fee)
    assert browser.find_element(By.CSS_SELECTOR, ".cart-count").text == "3"
    assert browser.find_element(By.CSS_SELECTOR, ".tab-bar a[aria-current=page]").text.endswith("장바구니")
    assert browser.find_element(By.ID, "keep-shopping").get_attribute("href").endswith("/shop")
    shot(browser, "04-cart")

    # A side dish too; the totals follow.
    side = dish(lambda d: d["section"] == "side" and d["stock"] >= 10 and d["minQuantity"] == 1)
    browser.get(server.url + f"/shop/dishes/{side['hash']}")
    click(browser, "#add-to-cart")
    wait_for(browser, EC.url_contains("/shop/cart"))
    items_total += side["salePrice"]
    fee = 0 if items_total >= 40_000 else 2_500
    assert browser.find_element(By.ID, "cart-total").text == won(items_total + fee)

    # Checkout asks where it goes (a visitor has no saved address: the fields are there) and shows the same total.
    click(browser, "#to-checkout")
    wait_for(browser, EC.url_contains("/shop/checkout"))
    assert browser.find_element(By.ID, "checkout-total").text == won(items_total + fee)
    assert browser.find_element(By.ID, "checkout-recipient").is_displayed()
    assert not browser.find_elements(By.ID, "checkout-save-address"), "nothing to save an address to without an account"
    fill_new_address(browser, HOME)
    click(browser, "#slot-dawn")
    assert no_horizontal_overflow(browser)
    shot(browser, "04b-checkout")
    click(browser, "#place-order")
    wait_for(browser, EC.url_matches(ORDER_PAGE))
    order_page = browser.current_url
    assert browser.find_element(By.ID, "order-status").text == "결제 대기"
    assert browser.find_element(By.ID, "order-grand-total").text == won(items_total + fee)
    shot(browser, "05-order")
    pay_to_complete(browser)
    assert browser.find_element(By.ID, "complete-total").text == won(items_total + fee)
    shot(browser, "05b-complete")
    click(browser, "#complete-order-link")
    wait_for(browser, lambda d: d.current_url == order_page and d.find_element(By.ID, "order-status").text == "결제 완료")
    shot(browser, "06-paid")

    browser.get(server.url + "/shop/orders")
    order = browser.find_element(By.CSS_SELECTOR, ".order-card")
    assert "결제 완료" in order.text and f"{first['title']} 외 1건" in order.text and won(items_total + fee) in order.text
    assert no_horizontal_overflow(browser)
    shot(browser, "07-history")

    # The cart was emptied by the order.
    browser.get(server.url + "/shop/cart")
    assert "장바구니가 비어 있어요." in browser.find_element(By.CSS_SELECTOR, ".empty-state").text


def test_stepper_limits_and_sold_out(server, browser):
    # A dish that must be ordered two at a time: − is off at 2.
    pair = dish(lambda d: d["minQuantity"] == 2 and d["stock"] > 2)
    browser.get(server.url + f"/shop/dishes/{pair['hash']}")
    assert browser.find_element(By.ID, "quantity").get_attribute("value") == "2"
    assert not browser.find_element(By.ID, "quantity-down").is_enabled()
    assert browser.find_element(By.ID, "order-total").text == won(pair["salePrice"] * 2)

    # A dish with less stock than its per-order maximum: + stops at the stock.
    scarce = dish(lambda d: 0 < d["stock"] < d["maxQuantity"] and d["minQuantity"] == 1)
    browser.get(server.url + f"/shop/dishes/{scarce['hash']}")
    up = browser.find_element(By.ID, "quantity-up")
    browser.execute_script("arguments[0].scrollIntoView({block: 'center'})", up)
    for _ in range(scarce["stock"] + 3):
        if up.is_enabled():
            up.click()
    assert browser.find_element(By.ID, "quantity").get_attribute("value") == str(scarce["stock"])
    assert not up.is_enabled(), "+ is off at the stock"
    assert browser.find_element(By.ID, "order-total").text == won(scarce["salePrice"] * scarce["stock"])
    # Typing past the limit is brought back to it.
    field = browser.find_element(By.ID, "quantity")
    field.clear()
    field.send_keys("99", Keys.TAB)
    assert field.get_attribute("value") == str(scarce["stock"])
    browser.execute_script("document.getElementById('quantity-up').scrollIntoView({block: 'center'})")
    shot(browser, "01-stepper-at-stock")

    # A sold-out dish shows so, and offers no cart button.
    sold_out = dish(lambda d: d["stock"] == 0)
    browser.get(server.url + f"/shop/dishes/{sold_out['hash']}")
    assert "품절" in browser.find_element(By.CSS_SELECTOR, ".sold-out-notice").text
    assert not browser.find_elements(By.ID, "add-to-cart")
    shot(browser, "02-sold-out")


def order_and_pay(browser, server, item):
    """One of `item` into the cart, checked out (to `HOME` when no saved address is chosen, by
    새벽배송), paid with the test gateway and, from "주문이 완료됐어요", on to the order's page:
    ends there."""
    browser.get(server.url + f"/shop/dishes/{item['hash']}")
    click(browser, "#add-to-cart")
    wait_for(browser, EC.url_contains("/shop/cart"))
    check_out(browser)
    pay_to_complete(browser)
    click(browser, "#complete-order-link")
    wait_for(browser, EC.url_matches(ORDER_PAGE))
    wait_for(browser, lambda d: d.find_element(By.ID, "order-status").text == "결제 완료")


def operator_signed_in(server, browser, email="boss@example.com"):
    """An administrator made with `whatweeat user create --admin` (the operator's own way), signed
    in on a browser of their own whose screenshots go with `browser`'s test. The caller quits it."""
    import os
    import subprocess

    from conftest import BINARY, make_browser

    subprocess.run([BINARY, "user", "create", "--admin", "--email", email, "--nickname", "사장님", "--password", "password1"],
                   cwd=ROOT, env=dict(os.environ, DATA_DIR=server.data_dir, LOG_LEVEL="error"), check=True, capture_output=True)
    operator = make_browser()
    operator.test_name = browser.test_name
    operator.get(server.url + "/login")
    fill(operator, "email", email)
    fill(operator, "password", "password1")
    operator.find_element(By.CSS_SELECTOR, "button[type=submit].primary").click()
    wait_for(operator, lambda d: "/login" not in d.current_url)
    return operator


def test_cancel_an_order_before_it_ships(server, browser):
    soup = dish(lambda d: d["section"] == "soup" and d["stock"] >= 5 and d["minQuantity"] == 1)
    # Paid first, so the cancellation owes a refund: the page says when the provider confirmed it.
    order_and_pay(browser, server, soup)
    assert re.fullmatch(r"주문번호 \d{8}-\d{4}", browser.find_element(By.ID, "order-number").text)
    # Cancelling asks first, saying the payment comes back; keeping the order goes back to it.
    click(browser, "#cancel-order")
    wait_for(browser, lambda d: "환불" in d.find_element(By.ID, "cancel-consequence").text)
    shot(browser, "00-cancel-asks-first")
    click(browser, "#keep-order")
    wait_for(browser, lambda d: d.find_element(By.ID, "order-status").text == "결제 완료")
    click(browser, "#cancel-order")
    click(browser, "#confirm-cancel")
    wait_for(browser, lambda d: d.find_element(By.ID, "order-status").text == "주문 취소")
    assert not browser.find_elements(By.ID, "cancel-order")
    assert not browser.find_elements(By.ID, "pay-test")
    assert "환불이 완료됐어요" in browser.find_element(By.ID, "order-refund").text
    shot(browser, "01-cancelled")
    # The unit went back: the page shows the full stock again.
    browser.get(server.url + f"/shop/dishes/{soup['hash']}")
    assert f"남은 수량 {soup['stock']}개" in browser.find_element(By.ID, "quantity-limits").text


def test_a_visitors_cart_joins_the_account_at_sign_up_and_sign_in(server, browser):
    """A shopper fills the cart before signing in: the dishes are still there after signing up,
    and again after signing out, filling a visitor's cart and signing back in (quantities added)."""
    from conftest import sign_up, fill
    first = dish(lambda d: d["section"] == "main" and d["minQuantity"] == 1 and d["maxQuantity"] >= 4 and d["stock"] >= 4)
    browser.get(server.url + f"/shop/dishes/{first['hash']}")
    click(browser, "#add-to-cart")
    wait_for(browser, EC.url_contains("/shop/cart"))
    assert first["title"] in browser.find_element(By.CSS_SELECTOR, ".cart-lines, main").text
    sign_up(browser, server, "장바구니손님")
    browser.get(server.url + "/shop/cart")
    assert first["title"] in browser.find_element(By.TAG_NAME, "main").text, "the visitor's cart came along"
    assert browser.find_element(By.CSS_SELECTOR, ".cart-count").text == "1"
    shot(browser, "09-cart-after-sign-up")

    # Signed out, the browser is a visitor again: two more of the dish, then sign in.
    browser.get(server.url + "/logout")
    click(browser, "main button[type=submit]")
    wait_for(browser, lambda d: "/logout" not in d.current_url)
    browser.get(server.url + f"/shop/dishes/{first['hash']}")
    click(browser, "#quantity-up")
    click(browser, "#add-to-cart")
    wait_for(browser, EC.url_contains("/shop/cart"))
    browser.get(server.url + "/login")
    fill(browser, "email", f"{abs(hash('장바구니손님')) % 10**8}@example.com")
    fill(browser, "password", "password1")
    browser.find_element(By.CSS_SELECTOR, "button[type=submit].primary").click()
    wait_for(browser, lambda d: "/login" not in d.current_url)
    browser.get(server.url + "/shop/cart")
    assert browser.find_element(By.CSS_SELECTOR, ".cart-count").text == "3", "1 + 2 of the same dish"


def test_the_operator_moves_an_order_from_the_console_and_the_buyer_sees_it(server, browser):
    """An order as two people see it: the buyer pays; the operator (an admin made with `user
    create --admin`) finds it in /admin/orders and starts preparing it; the buyer's page shows the
    step and the bell counts the notice. On the way the operator walks every tab: sets a dish's
    stock, reads the audit log, hides a review someone reported and shows it again (with reasons),
    finds the buyer in People, prints the packing list and changes the delivery fee, which the
    buyer's shop then shows. Every console page the operator saw is a 404 for the buyer and for a
    visitor, and axe finds nothing on any of them."""

    import requests

    from conftest import fill, sign_up
    from test_accessibility import violations

    # Someone reports one of the map's reviews, so Moderation has a real decision to make.
    api = server.url + "/api/v1"
    reporter = requests.post(api + "/auth/signup", json={"email": "reporter@example.com", "password": "password1", "nickname": "신고하는사람"},
                             timeout=10).json()["accessToken"]
    review = requests.get(api + "/burger-map/reviews?limit=1", timeout=10).json()["items"][0]["id"].lower()
    reported = requests.post(api + f"/burger-map/reviews/{review}/report", json={"reason": "광고 같아요"},
                             headers={"Authorization": f"Bearer {reporter}"}, timeout=10)
    assert reported.status_code == 200, reported.text
    console_pages = set()

    sign_up(browser, server, "주문하는사람")
    soup = dish(lambda d: d["section"] == "soup" and d["stock"] >= 5 and d["minQuantity"] == 1)
    order_and_pay(browser, server, soup)
    order_page = browser.current_url
    number = browser.find_element(By.ID, "order-number").text.split()[-1]

    browser.get(server.url + "/admin/orders")
    assert "404" in browser.title or browser.find_elements(By.CSS_SELECTOR, ".card.narrow"), "no console for a buyer"
    assert not browser.find_elements(By.ID, "admin-orders")

    operator = operator_signed_in(server, browser)
    try:
        # Today: the paid order waits to be prepared, amber, and its figure leads to it.
        operator.get(server.url + "/admin")
        waiting = wait_for(operator, lambda d: next((a for a in d.find_elements(By.CSS_SELECTOR, "a.today-figure")
                                                     if "준비할 주문" in a.text), None))
        assert waiting.find_element(By.CLASS_NAME, "figure-value").text == "1"
        assert "attention" in waiting.get_attribute("class")
        assert operator.find_element(By.ID, "admin-tab-today").get_attribute("aria-current") == "page"
        shot(operator, "admin-00-today")
        found = violations(operator, "/admin", server)
        click(operator, 'a.today-figure[href="/admin/orders?status=paid"]')
        wait_for(operator, EC.url_contains("/admin/orders?status=paid"))
        link = wait_for(operator, lambda d: next((a for a in d.find_elements(By.CSS_SELECTOR, "#admin-orders a") if number in a.text), None))
        shot(operator, "admin-01-orders")
        found += violations(operator, "/admin/orders", server)
        link = next(a for a in operator.find_elements(By.CSS_SELECTOR, "#admin-orders a") if number in a.text)
        link.click()
        wait_for(operator, lambda d: d.find_elements(By.ID, "move-preparing"))
        found += violations(operator, operator.current_url.removeprefix(server.url), server)
        assert not found, found
        click(operator, "#move-preparing")
        wait_for(operator, lambda d: d.find_element(By.ID, "order-status").text == "상품 준비 중")
        assert operator.find_elements(By.ID, "move-shipped") and not operator.find_elements(By.ID, "move-preparing")
        shot(operator, "admin-02-preparing")
        # Catalog: the soup's stock set by hand, shown in the list, and the change in the audit log.
        click(operator, "#admin-tab-catalog")
        click(operator, f"#catalog-{soup['hash']}")
        stock = wait_for(operator, lambda d: d.find_element(By.ID, "dish-stock"))
        stock.clear()
        stock.send_keys("3")
        found = violations(operator, operator.current_url.removeprefix(server.url), server)
        stock = wait_for(operator, lambda d: d.find_element(By.ID, "dish-stock"))
        stock.clear()
        stock.send_keys("3")
        click(operator, "#save-dish")
        row = wait_for(operator, lambda d: d.find_element(By.ID, f"catalog-{soup['hash']}"))
        assert "재고 3" in row.text, row.text
        shot(operator, "admin-03-catalog")
        found += violations(operator, "/admin/catalog", server)
        click(operator, "#admin-tab-audit")
        entries = wait_for(operator, lambda d: d.find_elements(By.CSS_SELECTOR, "#audit-entries .audit-entry"))
        assert "banchan.dish.change" in entries[0].text and "사장님" in entries[0].text
        assert "재고: " in entries[0].text and "→ 3" in entries[0].text, entries[0].text
        assert any("banchan.order.status" in e.text for e in entries)
        shot(operator, "admin-04-audit")
        found += violations(operator, "/admin/audit", server)
        # Moderation: the reported review is hidden with a reason, then shown again with another.
        click(operator, "#admin-tab-moderation")
        wait_for(operator, lambda d: d.find_elements(By.ID, "moderation-reviews") and d.find_elements(By.ID, "moderation-mates"))
        item = f'#moderation-reviews li[data-review="{review}"]'
        assert "결정 안 한 신고 1건" in operator.find_element(By.CSS_SELECTOR, item).text
        shot(operator, "admin-05-moderation")
        found += violations(operator, "/admin/moderation", server)
        fill(operator, f"reason-{review}", "광고 글이라 숨겨요")
        click(operator, f'{item} button[value="hide"]')
        wait_for(operator, lambda d: "숨겨진 리뷰" in d.find_element(By.CSS_SELECTOR, item).text)
        assert requests.get(api + f"/burger-map/reviews/{review}", timeout=10).status_code == 404, "hidden from everyone"
        fill(operator, f"reason-{review}", "확인해 보니 광고가 아니었어요")
        click(operator, f'{item} button[value="restore"]')
        wait_for(operator, lambda d: not d.find_elements(By.CSS_SELECTOR, item))
        assert requests.get(api + f"/burger-map/reviews/{review}", timeout=10).status_code == 200, "shown again"
        # People: the buyer found by nickname.
        click(operator, "#admin-tab-people")
        fill(operator, "people-query", "주문하는")
        operator.find_element(By.ID, "people-query").send_keys(Keys.ENTER)
        person = wait_for(operator, lambda d: next((a for a in d.find_elements(By.CSS_SELECTOR, "#people a") if "주문하는사람" in a.text), None))
        person.click()
        wait_for(operator, lambda d: d.find_element(By.ID, "person-name").text == "주문하는사람")
        assert operator.find_elements(By.ID, "change-role") and operator.find_elements(By.ID, "delete-person")
        shot(operator, "admin-06-person")
        found += violations(operator, operator.current_url.removeprefix(server.url), server)
        # The day's packing list has the buyer's order and where it goes; the menus beside the dishes.
        operator.get(server.url + "/admin/orders")
        click(operator, "#packing-link")
        slips = wait_for(operator, lambda d: d.find_elements(By.CSS_SELECTOR, "#packing-slips .packing-slip"))
        assert any(number in slip.text and "김반찬" in slip.text for slip in slips), [slip.text for slip in slips]
        shot(operator, "admin-07-packing")
        found += violations(operator, operator.current_url.removeprefix(server.url), server)
        click(operator, "#admin-tab-catalog")
        click(operator, "#catalog-nav-menus")
        wait_for(operator, lambda d: d.find_elements(By.ID, "menu-kimchi-jjigae"))
        found += violations(operator, "/admin/catalog/menus", server)
        # Delivery settings: the fee goes up for every next order.
        click(operator, "#catalog-nav-shop")
        fee = wait_for(operator, lambda d: d.find_element(By.ID, "shop-deliveryFee"))
        assert fee.get_attribute("value") == "2500"
        found += violations(operator, "/admin/catalog/shop", server)
        fill(operator, "shop-deliveryFee", "3000")
        click(operator, "#save-shop-settings")
        wait_for(operator, lambda d: d.find_elements(By.ID, "shop-settings-notice"))
        assert operator.find_element(By.ID, "shop-deliveryFee").get_attribute("value") == "3000"
        shot(operator, "admin-08-delivery-settings")
        assert not found, found
        console_pages = {path for path in (url.removeprefix(server.url) for url in visited(operator)) if path.startswith("/admin")}
    finally:
        operator.quit()

    # Every console page the operator saw is a 404 for the buyer (signed in) and for a visitor.
    buyer_cookies = {c["name"]: c["value"] for c in browser.get_cookies()}
    assert len(console_pages) >= 10, console_pages
    for path in sorted(console_pages):
        for cookies in (buyer_cookies, {}):
            answer = requests.get(server.url + path, cookies=cookies, timeout=10, allow_redirects=False)
            assert answer.status_code == 404, (path, answer.status_code)
    browser.get(server.url + "/shop")
    assert "3,000원" in browser.find_element(By.CSS_SELECTOR, ".shop-hero .lead").text

    browser.get(order_page)
    wait_for(browser, lambda d: d.find_element(By.ID, "order-status").text == "상품 준비 중")
    steps = browser.find_elements(By.CSS_SELECTOR, "#order-steps li.done")
    assert [s.find_element(By.CSS_SELECTOR, ".step-name").text for s in steps] == ["결제 완료", "상품 준비 중"]
    assert browser.find_element(By.ID, "cancel-order").text == "취소 요청"
    shot(browser, "admin-03-buyer-sees-preparing")


def test_checkout_asks_where_it_goes_and_gives_a_receipt(server, browser):
    """A signed-in shopper on a phone checks out: a phone number that is not one is sent back
    with what was typed kept; fixed, the order is placed (택배, 카카오페이, a note); paying shows
    "주문이 완료됐어요" with the number and the address, the receipt (with the sale's discount) the
    same total as the order, whose page shows where it goes. The address was kept: the next checkout
    starts from it, and the address book lists it as the default until another is made so."""
    from conftest import sign_up

    sign_up(browser, server, "배송지손님")
    on_sale = dish(lambda d: d["originalPrice"] and d["stock"] >= 5 and d["minQuantity"] == 1 and "전국택배" in d["deliveryTypes"])
    total = on_sale["salePrice"] + (0 if on_sale["salePrice"] >= 40_000 else 2_500)
    browser.get(server.url + f"/shop/dishes/{on_sale['hash']}")
    click(browser, "#add-to-cart")
    wait_for(browser, EC.url_contains("/shop/cart"))
    click(browser, "#to-checkout")
    wait_for(browser, EC.url_contains("/shop/checkout"))

    # No saved address yet: the fields are there, and keeping the address is offered (and on).
    assert browser.find_element(By.TAG_NAME, "h1").text == "주문서"
    assert browser.find_element(By.ID, "checkout-recipient").is_displayed()
    assert browser.find_element(By.ID, "checkout-save-address").is_selected()
    assert browser.find_element(By.ID, "checkout-total").text == won(total)
    assert browser.find_element(By.ID, "slot-dawn").is_enabled() and browser.find_element(By.ID, "slot-parcel").is_enabled()
    assert re.search(r"새벽배송은 (밤|오후) \d{1,2}시( \d{1,2}분)?까지", browser.find_element(By.ID, "dawn-cutoff").text)
    assert browser.find_element(By.ID, "method-card").is_selected(), "a card unless another is chosen"
    home = dict(HOME, phone="010-12")
    fill_new_address(browser, home)
    fill(browser, "checkout-note", "문 앞에 놓아 주세요")
    click(browser, "#slot-parcel")
    click(browser, "#method-kakaopay")
    assert no_horizontal_overflow(browser)
    browser.execute_script("window.scrollTo(0, 0)")
    shot(browser, "01-checkout")

    # The phone number is not one: said so, and nothing typed or chosen is lost.
    click(browser, "#place-order")
    wait_for(browser, lambda d: d.find_element(By.CSS_SELECTOR, ".form-error").text == "연락처를 010-1234-5678처럼 적어 주세요.")
    for name in ("recipient", "phone", "postcode", "address", "addressDetail"):
        assert browser.find_element(By.ID, f"checkout-{name}").get_attribute("value") == home[name], name
    assert browser.find_element(By.ID, "checkout-note").get_attribute("value") == "문 앞에 놓아 주세요"
    assert browser.find_element(By.ID, "slot-parcel").is_selected()
    assert browser.find_element(By.ID, "method-kakaopay").is_selected()
    assert browser.find_element(By.ID, "checkout-save-address").is_selected()
    assert not browser.find_elements(By.CSS_SELECTOR, "#pay-test"), "no order was placed"
    shot(browser, "02-checkout-bad-phone")

    # Typed as digits only, it is a number: the order is placed, written as 010-1234-5678.
    fill(browser, "checkout-phone", "01012345678")
    click(browser, "#place-order")
    wait_for(browser, EC.url_matches(ORDER_PAGE))
    order_page = browser.current_url
    assert browser.find_element(By.ID, "order-status").text == "결제 대기"
    assert not browser.find_elements(By.ID, "receipt-link"), "no receipt before paying"

    pay_to_complete(browser)
    number = re.fullmatch(r"주문번호 (\d{8}-\d{4})", browser.find_element(By.ID, "order-number").text).group(1)
    assert browser.find_element(By.ID, "complete-address").text == address_line(HOME)
    assert browser.find_element(By.ID, "complete-arrival").text == "택배로 1~2일 안에 도착해요."
    assert browser.find_element(By.ID, "complete-total").text == won(total)
    assert no_horizontal_overflow(browser)
    shot(browser, "03-complete")

    click(browser, "#complete-receipt-link")
    wait_for(browser, EC.url_matches(r"/shop/orders/[0-9a-f-]{36}/receipt$"))
    assert browser.find_element(By.ID, "receipt").is_displayed()
    assert browser.find_element(By.ID, "receipt-number").text == number
    receipt_total = browser.find_element(By.ID, "receipt-total").text
    assert receipt_total == won(total)
    assert browser.find_element(By.ID, "receipt-discount").text == "−" + won(on_sale["originalPrice"] - on_sale["salePrice"])
    assert browser.find_element(By.ID, "receipt-delivery-fee").text == won(total - on_sale["salePrice"])
    assert browser.find_element(By.ID, "receipt-method").text == "카카오페이"
    assert no_horizontal_overflow(browser)
    shot(browser, "04-receipt")
    # Printed, the receipt is the page: no header.
    browser.execute_cdp_cmd("Emulation.setEmulatedMedia", {"media": "print"})
    try:
        assert not browser.find_element(By.CSS_SELECTOR, ".site-header").is_displayed()
        assert browser.find_element(By.ID, "receipt").is_displayed()
    finally:
        browser.execute_cdp_cmd("Emulation.setEmulatedMedia", {"media": ""})

    # The order's page: the same total, a receipt, and where it goes.
    browser.get(order_page)
    wait_for(browser, lambda d: d.find_element(By.ID, "order-status").text == "결제 완료")
    assert browser.find_element(By.ID, "order-grand-total").text == receipt_total
    assert browser.find_element(By.ID, "receipt-link").is_displayed()
    assert browser.find_element(By.ID, "delivery-recipient").text == f"{HOME['recipient']} · {HOME['phone']}"
    assert browser.find_element(By.ID, "delivery-address").text == address_line(HOME)
    assert browser.find_element(By.ID, "delivery-slot").text == "택배 · 택배로 1~2일 안에 도착해요."
    assert browser.find_element(By.ID, "delivery-note").text == "문 앞에 놓아 주세요"
    browser.execute_script("document.getElementById('delivery-recipient').scrollIntoView({block: 'center'})")
    shot(browser, "05-order-delivery")

    # The next checkout starts from the saved address: chosen, the new-address fields out of the way.
    side = dish(lambda d: d["section"] == "side" and d["stock"] >= 5 and d["minQuantity"] == 1)
    browser.get(server.url + f"/shop/dishes/{side['hash']}")
    click(browser, "#add-to-cart")
    wait_for(browser, EC.url_contains("/shop/cart"))
    click(browser, "#to-checkout")
    wait_for(browser, EC.url_contains("/shop/checkout"))
    chosen = browser.find_element(By.CSS_SELECTOR, "input[name=addressChoice]:checked")
    saved_id = re.fullmatch(r"address-([0-9A-Fa-f-]{36})", chosen.get_attribute("id")).group(1)
    saved_card = chosen.find_element(By.XPATH, "./ancestor::label")
    assert HOME["recipient"] in saved_card.text and address_line(HOME) in saved_card.text
    assert saved_card.find_element(By.CSS_SELECTOR, ".badge").text == "기본 배송지"
    assert not browser.find_element(By.ID, "address-new").is_selected()
    assert not browser.find_element(By.ID, "checkout-recipient").is_displayed()
    assert not browser.find_element(By.ID, "checkout-save-address").is_displayed()
    click(browser, "#slot-dawn")
    browser.execute_script("window.scrollTo(0, 0)")
    shot(browser, "06-checkout-saved-address")
    click(browser, "#place-order")
    wait_for(browser, EC.url_matches(ORDER_PAGE))
    assert browser.find_element(By.ID, "delivery-address").text == address_line(HOME)
    assert browser.find_element(By.ID, "delivery-recipient").text == f"{HOME['recipient']} · {HOME['phone']}"
    assert browser.find_element(By.ID, "delivery-slot").text.startswith("새벽배송 · ")
    assert not browser.find_elements(By.ID, "delivery-note"), "no note this time"
    pay_to_complete(browser)
    assert browser.find_element(By.ID, "complete-address").text == address_line(HOME)
    assert browser.find_element(By.ID, "complete-arrival").text.endswith("아침 7시 전에 새벽배송으로 도착해요.")
    second = re.fullmatch(r"주문번호 (\d{8}-\d{4})", browser.find_element(By.ID, "order-number").text).group(1)
    assert second != number

    # The address book: the one address, the default (kept once, not again by the second order).
    browser.get(server.url + "/shop/addresses")
    cards = browser.find_elements(By.CSS_SELECTOR, "#addresses li.address-card")
    assert len(cards) == 1
    assert cards[0].get_attribute("data-id").lower() == saved_id.lower()
    assert cards[0].find_element(By.CSS_SELECTOR, ".badge").text == "기본 배송지"
    assert HOME["recipient"] in cards[0].text and HOME["phone"] in cards[0].text and address_line(HOME) in cards[0].text
    assert no_horizontal_overflow(browser)
    shot(browser, "07-address-book")

    # A second address, made the default: it leads the list with the badge; the first loses it
    # (and offers "기본 배송지로" instead).
    office = {"recipient": "이회사", "phone": "010-9876-5432", "postcode": "06142", "address": "서울특별시 강남구 테헤란로 231",
              "addressDetail": "5층"}
    click(browser, "#add-address")
    wait_for(browser, lambda d: d.find_elements(By.ID, "address-form"))
    for name, value in office.items():
        fill(browser, f"address-{name}", value)
    if not browser.find_element(By.ID, "address-default").is_selected():
        click(browser, "#address-default")
    assert browser.find_element(By.ID, "address-default").is_selected()
    click(browser, "#save-address")
    wait_for(browser, lambda d: d.current_url.endswith("/shop/addresses") and len(d.find_elements(By.CSS_SELECTOR, "#addresses li.address-card")) == 2)
    cards = browser.find_elements(By.CSS_SELECTOR, "#addresses li.address-card")
    defaults = [c for c in cards if c.find_elements(By.CSS_SELECTOR, ".badge")]
    assert len(defaults) == 1 and office["recipient"] in defaults[0].text
    assert defaults[0].find_element(By.CSS_SELECTOR, ".badge").text == "기본 배송지"
    assert defaults[0].get_attribute("data-id") == cards[0].get_attribute("data-id"), "the default first"
    first = next(c for c in cards if c.get_attribute("data-id").lower() == saved_id.lower())
    assert not first.find_elements(By.CSS_SELECTOR, ".badge")
    assert "기본 배송지로" in first.text
    assert no_horizontal_overflow(browser)
    shot(browser, "08-address-book-new-default")


def test_english_and_japanese_pages_write_prices_with_the_won_sign(server, browser):
    browser.get(server.url + "/shop")
    first = browser.find_element(By.CSS_SELECTOR, ".sale-price").text
    assert first.endswith("원"), first
    for language in ["en", "ja"]:
        click(browser, f".language-switch button[value={language}]")
        # The page of the language asked for: after "en", Japanese's prices look the same until it comes.
        wait_for(browser, lambda d: d.find_element(By.TAG_NAME, "html").get_attribute("lang") == language
                 and d.find_element(By.CSS_SELECTOR, ".sale-price").text.startswith("₩"))
        price = browser.find_element(By.CSS_SELECTOR, ".sale-price").text
        assert re.fullmatch(r"₩\d{1,3}(,\d{3})*", price), price
        assert price == "₩" + first.removesuffix("원"), (price, first)
    assert no_horizontal_overflow(browser)
    shot(browser, "01-japanese-shop")


def test_the_buyers_open_order_page_follows_the_operator_without_a_reload(server, browser):
    """Issue 61's first check: the buyer keeps the order's page open; the operator starts
    preparing it, then ships it with CJ대한통운 and a 송장번호 from /admin. The buyer's page shows
    상품 준비 중, then 배송 중 with the courier's tracking link and no cancel button, without being
    reloaded (a mark set on the page's window survives), and says each change to screen readers."""

    from conftest import sign_up
    from selenium.webdriver.support.ui import Select
    from test_accessibility import violations

    sign_up(browser, server, "기다리는사람")
    soup = dish(lambda d: d["section"] == "soup" and d["stock"] >= 5 and d["minQuantity"] == 1)
    order_and_pay(browser, server, soup)
    order_id = re.search(r"/shop/orders/([0-9a-f-]+)", browser.current_url).group(1)
    assert browser.find_elements(By.ID, "cancel-order")
    browser.execute_script("window.notReloaded = true")

    operator = operator_signed_in(server, browser)
    try:
        operator.get(server.url + f"/admin/orders/{order_id}")
        click(operator, "#move-preparing")
        wait_for(operator, lambda d: d.find_element(By.ID, "order-status").text == "상품 준비 중")

        wait_for(browser, lambda d: d.find_element(By.ID, "order-status").text == "상품 준비 중")
        assert browser.find_element(By.ID, "cancel-order").text == "취소 요청", "the button its state allows now"
        assert "상품 준비 중" in browser.find_element(By.ID, "order-live-note").text

        # A typo in the number comes back with what was typed; then the right one.
        Select(operator.find_element(By.ID, "ship-courier")).select_by_value("cj")
        fill(operator, "ship-tracking", "6789-12")
        click(operator, "#move-shipped")
        wait_for(operator, lambda d: "송장번호는 숫자" in d.page_source)
        assert operator.find_element(By.ID, "ship-tracking").get_attribute("value") == "6789-12"
        shot(operator, "00-ship-form-typo")
        fill(operator, "ship-tracking", "6789-1234-5678")
        click(operator, "#move-shipped")
        wait_for(operator, lambda d: d.find_element(By.ID, "order-status").text == "배송 중")
        shot(operator, "01-console-shipped")
    finally:
        operator.quit()

    wait_for(browser, lambda d: d.find_element(By.ID, "order-status").text == "배송 중")
    tracking = wait_for(browser, lambda d: d.find_element(By.ID, "order-tracking"))
    assert tracking.get_attribute("href") == "https://trace.cjlogistics.com/next/tracking.html?wblNo=678912345678"
    assert "CJ대한통운 · 송장번호 678912345678" in browser.find_element(By.ID, "order-shipment").text
    assert not browser.find_elements(By.ID, "cancel-order"), "nothing to cancel once it ships"
    assert "배송 중" in browser.find_element(By.ID, "order-live-note").text
    assert browser.execute_script("return window.notReloaded === true"), "the page was not reloaded"
    assert no_horizontal_overflow(browser)
    shot(browser, "02-buyer-sees-shipped")
    assert not violations(browser, browser.current_url.removeprefix(server.url), server)


def test_the_console_is_laid_out_for_a_desktop(server, browser):
    """The UX review: at 1280 px the console was a 510 px column with an order's buttons below the
    fold. On a desktop the tabs are a column on the left, the page takes the width, and an order's
    moves stay in view beside it; the audit log reads in words."""

    from conftest import sign_up
    from test_accessibility import violations

    sign_up(browser, server, "데스크톱손님")
    soup = dish(lambda d: d["section"] == "soup" and d["stock"] >= 5 and d["minQuantity"] == 1)
    order_and_pay(browser, server, soup)
    order_id = re.search(r"/shop/orders/([0-9a-f-]+)", browser.current_url).group(1)
    operator = operator_signed_in(server, browser, "desk@example.com")
    try:
        operator.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", {"width": 1280, "height": 800, "deviceScaleFactor": 1, "mobile": False})
        operator.get(server.url + "/admin/orders")
        rows = wait_for(operator, lambda d: d.find_elements(By.CSS_SELECTOR, "#admin-orders .order-card"))
        assert rows[0].rect["width"] > 900, rows[0].rect
        tabs = operator.find_element(By.CSS_SELECTOR, ".admin-tabs").rect
        assert tabs["x"] < rows[0].rect["x"] and tabs["width"] < 260, (tabs, rows[0].rect)
        shot(operator, "00-orders-desktop")
        operator.get(server.url + f"/admin/orders/{order_id}")
        move = wait_for(operator, lambda d: d.find_element(By.ID, "move-preparing"))
        assert move.rect["y"] + move.rect["height"] <= 800, f"the moves are in view: {move.rect}"
        assert operator.find_element(By.ID, "ship-form").rect["y"] < 800
        shot(operator, "01-order-desktop")
        found = violations(operator, f"/admin/orders/{order_id}", server)
        move = wait_for(operator, lambda d: d.find_element(By.ID, "move-preparing"))
        move.click()
        wait_for(operator, lambda d: d.find_element(By.ID, "order-status").text == "상품 준비 중")
        operator.get(server.url + "/admin/audit")
        entry = wait_for(operator, lambda d: d.find_element(By.CSS_SELECTOR, "#audit-entries .audit-entry"))
        assert "주문 상태를 바꿨어요" in entry.text and "상태: 결제 완료 → 상품 준비 중" in entry.text, entry.text
        shot(operator, "02-audit-desktop")
        found += violations(operator, "/admin/audit", server)
        assert not found, found
    finally:
        operator.quit()


@pytest.fixture
def postcode_stub():
    """Serves Tests/e2e/stubs/ (the postcode service's stand-in) on a free port: its address."""
    import functools
    import http.server
    import threading

    from conftest import free_port

    port = free_port()
    handler = functools.partial(http.server.SimpleHTTPRequestHandler, directory=str(ROOT / "Tests" / "e2e" / "stubs"))
    handler.log_message = lambda *args: None
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", port), handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{port}"
    httpd.shutdown()


def test_the_postcode_search_fills_checkout_and_typing_still_works(postcode_stub, browser):
    """Issue 61's second check: at checkout, 우편번호 찾기 opens the postcode service (its local
    stand-in), a chosen address fills the postcode and the address and moves on to the flat; the
    order is placed with it. Then, with the service unreachable, the button says to type the
    address, and a typed one is placed as before."""
    from conftest import Server

    server = Server(POSTCODE_SCRIPT_URL=postcode_stub + "/postcode.js")
    server.start()
    try:
        soup = dish(lambda d: d["section"] == "soup" and d["stock"] >= 5 and d["minQuantity"] == 1)
        browser.get(server.url + f"/shop/dishes/{soup['hash']}")
        click(browser, "#add-to-cart")
        wait_for(browser, EC.url_contains("/shop/cart"))
        click(browser, "#to-checkout")
        wait_for(browser, EC.url_contains("/shop/checkout"))
        assert not browser.execute_script("return !!window.daum"), "the service is not fetched with the page"
        opener = wait_for(browser, lambda d: d.find_element(By.ID, "postcode-open") if d.find_element(By.ID, "postcode-open").is_displayed() else None)
        opener.click()
        query = wait_for(browser, lambda d: d.find_element(By.ID, "stub-postcode-query"))
        assert browser.find_element(By.ID, "postcode-layer").is_displayed()
        query.send_keys("세종대로")
        pick = wait_for(browser, lambda d: d.find_element(By.CSS_SELECTOR, "#stub-postcode-results button"))
        shot(browser, "00-postcode-search")
        pick.click()
        wait_for(browser, lambda d: not d.find_element(By.ID, "postcode-layer").is_displayed())
        assert browser.find_element(By.ID, "checkout-postcode").get_attribute("value") == "04524"
        assert browser.find_element(By.ID, "checkout-address").get_attribute("value") == "서울특별시 중구 세종대로 110 (태평로1가)"
        assert browser.switch_to.active_element.get_attribute("id") == "checkout-addressDetail", "on to the flat and floor"
        fill(browser, "checkout-recipient", "김주소")
        fill(browser, "checkout-phone", "010-2222-3333")
        fill(browser, "checkout-addressDetail", "3층")
        shot(browser, "01-filled")
        click(browser, "#place-order")
        wait_for(browser, EC.url_matches(ORDER_PAGE))
        assert "(04524) 서울특별시 중구 세종대로 110 (태평로1가) 3층" in browser.find_element(By.ID, "delivery-address").text
    finally:
        server.cleanup()

    # The service cannot be reached: the button says to type, and typing works as before.
    dead = Server(POSTCODE_SCRIPT_URL="http://127.0.0.1:9/postcode.js")
    dead.start()
    try:
        browser.delete_all_cookies()
        browser.get(dead.url + f"/shop/dishes/{soup['hash']}")
        click(browser, "#add-to-cart")
        wait_for(browser, EC.url_contains("/shop/cart"))
        click(browser, "#to-checkout")
        wait_for(browser, EC.url_contains("/shop/checkout"))
        click(browser, "#postcode-open")
        hint = wait_for(browser, lambda d: d.find_element(By.ID, "postcode-unavailable") if d.find_element(By.ID, "postcode-unavailable").is_displayed() else None,
                        timeout=15)
        assert hint.text == "주소 찾기를 열 수 없어요. 주소를 직접 적어 주세요."
        assert browser.switch_to.active_element.get_attribute("id") == "checkout-postcode"
        shot(browser, "02-unavailable")
        fill_new_address(browser, HOME)
        click(browser, "#place-order")
        wait_for(browser, EC.url_matches(ORDER_PAGE))
    finally:
        dead.cleanup()


def test_the_operator_adds_a_dish_with_a_photo_and_it_sells(server, browser):
    """Issue 61: the console runs the shop. The operator adds a dish with its photo from /admin;
    the shop shows the photo; a buyer orders and pays; the operator ships it with a 송장번호 and
    refunds its one line, which the buyer's open page shows."""
    from conftest import sign_up
    from test_burger_map import png_file

    operator = operator_signed_in(server, browser)
    try:
        operator.get(server.url + "/admin/catalog")
        click(operator, "#new-dish")
        fill(operator, "new-title", "유자 연근조림")
        Select = __import__("selenium.webdriver.support.ui", fromlist=["Select"]).Select
        Select(operator.find_element(By.ID, "new-section")).select_by_value("side")
        fill(operator, "new-description", "새콤달콤한 유자청에 조린 연근")
        fill(operator, "new-salePrice", "6900")
        fill(operator, "new-stock", "5")
        operator.find_element(By.ID, "dish-photo-file").send_keys(png_file(900, 700, (230, 180, 40)))
        shot(operator, "00-new-dish")
        click(operator, "#add-dish")
        wait_for(operator, EC.url_contains("/admin/catalog/dishes/N"))
        hash_ = re.search(r"/admin/catalog/dishes/(N[A-Z0-9]{5})", operator.current_url).group(1)
        preview = wait_for(operator, lambda d: d.find_element(By.ID, "dish-photo"))
        wait_for(operator, lambda d: d.execute_script("return arguments[0].complete && arguments[0].naturalWidth", preview) == 900)
        shot(operator, "01-dish-with-photo")

        sign_up(browser, server, "유자좋아")
        browser.get(server.url + "/shop#section-side")
        link = wait_for(browser, lambda d: d.find_element(By.CSS_SELECTOR, f'a.dish-title[href="/shop/dishes/{hash_}"]'))
        card = link.find_element(By.XPATH, "ancestor::div[contains(@class, 'dish-card')]//img")
        browser.execute_script("arguments[0].scrollIntoView({block: 'center'})", card)  # the list's pictures load lazily
        wait_for(browser, lambda d: d.execute_script("return arguments[0].complete && arguments[0].naturalWidth", card) == 900)
        shot(browser, "02-in-the-shop")
        order_and_pay(browser, server, {"hash": hash_})
        order_id = re.search(r"/shop/orders/([0-9a-f-]+)", browser.current_url).group(1)

        operator.get(server.url + f"/admin/orders/{order_id}")
        # A 새벽배송 order starts on the shop's own van; this one goes by CJ대한통운.
        from selenium.webdriver.support.ui import Select as Choose
        assert Choose(operator.find_element(By.ID, "ship-courier")).first_selected_option.get_attribute("value") == "shop"
        Choose(operator.find_element(By.ID, "ship-courier")).select_by_value("cj")
        fill(operator, "ship-tracking", "123456789012")
        click(operator, "#move-shipped")
        wait_for(operator, lambda d: d.find_element(By.ID, "order-status").text == "배송 중")
        wait_for(browser, lambda d: d.find_element(By.ID, "order-status").text == "배송 중")
        assert "123456789012" in browser.find_element(By.ID, "order-shipment").text
        shot(browser, "03-shipped")

        # The dish arrived spoiled: the operator refunds that line from the order's page; the
        # buyer's open page shows the refund without a reload.
        click(operator, "#refund-line-0-open")
        fill(operator, "refund-line-0-reason", "상해서 도착했어요")
        shot(operator, "04-refund-a-line")
        click(operator, "#refund-line-0")
        entry = wait_for(operator, lambda d: d.find_element(By.ID, "admin-line-refunds"))
        assert "상해서 도착했어요" in entry.text and "환불 완료" in entry.text, entry.text
        assert "6,900원" in operator.find_element(By.ID, "admin-refunded-total").text
        refunded = wait_for(browser, lambda d: d.find_element(By.ID, "order-refunded-total"))
        assert "6,900원" in refunded.text
        assert browser.find_element(By.ID, "order-status").text == "배송 중", "the rest of the order stands"
        shot(browser, "05-line-refunded")
    finally:
        operator.quit()
