"""A new user signs up, sees their page, survives a server restart, logs out and in again."""
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support import expected_conditions as EC

import re
import time

import pytest

from conftest import MAIL_SINK, fill, make_browser, no_horizontal_overflow, shot, sign_up, wait_for


def test_sign_up_restart_and_log_in_again(server, browser):
    browser.get(server.url + "/")
    assert "오늘 뭐 먹지?" in browser.find_element(By.TAG_NAME, "h1").text
    assert no_horizontal_overflow(browser)
    shot(browser, "01-home")

    browser.find_element(By.LINK_TEXT, "회원가입").click()
    wait_for(browser, EC.url_contains("/signup"))
    fill(browser, "email", "mina@example.com")
    fill(browser, "nickname", "먹보미나🍔")
    fill(browser, "password", "password1")
    shot(browser, "02-signup-filled")
    browser.find_element(By.CSS_SELECTOR, "button[type=submit].primary").click()

    # Back where it started (the home page), welcomed, with the services a tap away.
    wait_for(browser, EC.url_contains("/?welcome=1"))
    welcome = browser.find_element(By.ID, "welcome")
    assert "먹보미나🍔님, 반가워요!" in welcome.text
    assert len(welcome.find_elements(By.CSS_SELECTOR, ".welcome-services a")) == 4
    assert no_horizontal_overflow(browser)
    shot(browser, "03-welcome")
    browser.get(server.url + "/me")
    assert browser.find_element(By.CSS_SELECTOR, ".profile h1").text == "먹보미나🍔"
    assert "mina@example.com" in browser.page_source
    shot(browser, "03-my-page")

    # The server restarts; the browser's session is stored in the database and still works.
    server.restart()
    browser.get(server.url + "/me")
    assert browser.find_element(By.CSS_SELECTOR, ".profile h1").text == "먹보미나🍔"

    # Signing out is in the account's menu under the nickname, and asks first: "stay" keeps the
    # session, "로그아웃" ends it.
    browser.find_element(By.CSS_SELECTOR, ".account-details summary").click()
    wait_for(browser, lambda d: d.find_element(By.ID, "account-logout").is_displayed())
    assert no_horizontal_overflow(browser)
    shot(browser, "03b-account-menu")
    browser.find_element(By.ID, "account-logout").click()
    wait_for(browser, EC.url_contains("/logout"))
    browser.find_element(By.ID, "cancel-logout").click()
    wait_for(browser, EC.url_contains("/me"))
    assert browser.find_element(By.CSS_SELECTOR, ".profile h1").text == "먹보미나🍔", "still signed in"
    browser.find_element(By.CSS_SELECTOR, ".account-details summary").click()
    browser.find_element(By.ID, "account-logout").click()
    wait_for(browser, EC.url_contains("/logout"))
    shot(browser, "03c-sign-out-asks")
    browser.find_element(By.ID, "confirm-logout").click()
    wait_for(browser, EC.presence_of_element_located((By.LINK_TEXT, "로그인")))
    browser.get(server.url + "/me")
    wait_for(browser, EC.url_contains("/login"))
    shot(browser, "04-login-after-restart")

    fill(browser, "email", "mina@example.com")
    fill(browser, "password", "wrong-password")
    browser.find_element(By.ID, "password").send_keys(Keys.ENTER)
    alert = wait_for(browser, EC.presence_of_element_located((By.CSS_SELECTOR, ".form-error")))
    assert "이메일 또는 비밀번호가 맞지 않아요." in alert.text
    shot(browser, "05-wrong-password")

    fill(browser, "password", "password1")
    browser.find_element(By.ID, "password").send_keys(Keys.ENTER)
    wait_for(browser, EC.url_contains("/me"))
    assert browser.find_element(By.CSS_SELECTOR, ".profile h1").text == "먹보미나🍔"


def test_sign_up_errors_stay_on_the_form(server, browser):
    browser.get(server.url + "/signup")
    fill(browser, "email", "mina@example.com")
    fill(browser, "nickname", "미나")
    # The browser's own check (minlength) would stop a short password; bypass it to see the server's answer.
    browser.execute_script("document.getElementById('password').removeAttribute('minlength')")
    fill(browser, "password", "short")
    browser.find_element(By.CSS_SELECTOR, "button[type=submit].primary").click()
    alert = wait_for(browser, EC.presence_of_element_located((By.CSS_SELECTOR, ".form-error")))
    assert "고쳐 주세요" in alert.text
    assert "8자 이상" in browser.find_element(By.ID, "password-error").text
    assert browser.find_element(By.ID, "email").get_attribute("value") == "mina@example.com"
    shot(browser, "01-signup-error")


def test_language_switch_and_profile_edit(server, browser):
    browser.get(server.url + "/signup")
    fill(browser, "email", "joon@example.com")
    fill(browser, "nickname", "준서")
    fill(browser, "password", "password1")
    browser.find_element(By.CSS_SELECTOR, "button[type=submit].primary").click()
    wait_for(browser, EC.url_contains("welcome=1"))
    browser.get(server.url + "/me")

    browser.find_element(By.CSS_SELECTOR, "button.language[value=en]").click()
    wait_for(browser, EC.text_to_be_present_in_element((By.TAG_NAME, "h2"), "Profile"))
    assert browser.find_element(By.TAG_NAME, "html").get_attribute("lang") == "en"
    shot(browser, "01-english")

    browser.find_element(By.CSS_SELECTOR, "button.language[value=ja]").click()
    wait_for(browser, EC.text_to_be_present_in_element((By.TAG_NAME, "h2"), "プロフィール"))
    fill(browser, "nickname", "ジュンソ")
    browser.find_element(By.CSS_SELECTOR, "form[action='/me/profile'] button[type=submit]").click()
    notice = wait_for(browser, EC.presence_of_element_located((By.CSS_SELECTOR, ".notice")))
    assert "プロフィールを保存しました" in notice.text
    assert browser.find_element(By.CSS_SELECTOR, ".profile h1").text == "ジュンソ"
    shot(browser, "02-japanese-saved")


def test_keyboard_users_see_where_focus_is(server, browser):
    browser.get(server.url + "/login")
    body = browser.find_element(By.TAG_NAME, "body")
    body.send_keys(Keys.TAB)
    focused = browser.switch_to.active_element
    assert focused.get_attribute("class") == "skip-link"
    outline = browser.execute_script("return getComputedStyle(arguments[0]).outlineStyle", focused)
    assert outline == "solid"
    shot(browser, "01-skip-link-focused")


def reset_link_in_mail(email):
    """The newest reset link mailed to `email` (every test server mails through conftest's sink)."""
    for _ in range(100):
        for body in reversed(MAIL_SINK.texts_to(email)):
            found = re.search(r"http://\S+/reset-password\?token=[A-Za-z0-9_-]+", body)
            if found:
                return found.group(0)
        time.sleep(0.1)
    raise AssertionError("no reset link was mailed to " + email)


def test_a_forgotten_password_from_the_login_page_signs_out_every_other_device(server, browser):
    # Mina has an account, signed in on her laptop.
    sign_up(browser, server, "비번잊은미나")
    browser.get(server.url + "/me")
    email = browser.find_element(By.CSS_SELECTOR, ".profile .muted").text
    phone = make_browser()
    phone.test_name = browser.test_name
    try:
        # On her phone she has forgotten the password: "비밀번호를 잊으셨나요?" under the login form.
        phone.get(server.url + "/login")
        phone.find_element(By.ID, "forgot-password").click()
        wait_for(phone, EC.url_contains("/forgot-password"))
        assert no_horizontal_overflow(phone)
        shot(phone, "10-forgot-password")
        fill(phone, "email", email.upper())
        phone.find_element(By.CSS_SELECTOR, "button[type=submit].primary").click()
        sent = wait_for(phone, lambda d: d.find_element(By.ID, "reset-sent"))
        assert "링크를 보냈어요" in sent.text
        shot(phone, "11-check-your-mail")

        # The link from the mail.
        link = reset_link_in_mail(email)
        phone.get(link)
        wait_for(phone, lambda d: d.find_element(By.ID, "password"))
        shot(phone, "12-new-password")
        fill(phone, "password", "short")
        # The browser's own minlength check is not what is tested: the server's rule is.
        phone.execute_script("document.getElementById('password').removeAttribute('minlength')")
        phone.find_element(By.CSS_SELECTOR, "button[type=submit].primary").click()
        problem = wait_for(phone, lambda d: d.find_element(By.ID, "password-error"))
        assert "8자" in problem.text, problem.text
        fill(phone, "password", "새비밀번호-2026")
        phone.find_element(By.CSS_SELECTOR, "button[type=submit].primary").click()
        wait_for(phone, EC.url_contains("/me?notice=password_reset"))
        assert "다른 기기에서는 모두 로그아웃" in phone.find_element(By.CSS_SELECTOR, ".notice").text
        assert no_horizontal_overflow(phone)
        shot(phone, "13-signed-in-with-new-password")

        # The laptop was signed out; the link cannot be used twice.
        browser.get(server.url + "/me")
        wait_for(browser, EC.url_contains("/login"))
        phone.get(link)
        used = wait_for(phone, lambda d: d.find_element(By.ID, "reset-link-problem"))
        assert "이미 쓴 링크" in used.text
        shot(phone, "14-used-link")

        # The old password no longer works; the new one does.
        fill(browser, "email", email)
        fill(browser, "password", "password1")
        browser.find_element(By.CSS_SELECTOR, "button[type=submit].primary").click()
        wait_for(browser, lambda d: d.find_element(By.CSS_SELECTOR, ".form-error"))
        fill(browser, "email", email)
        fill(browser, "password", "새비밀번호-2026")
        browser.find_element(By.CSS_SELECTOR, "button[type=submit].primary").click()
        wait_for(browser, EC.url_contains("/me"))
    finally:
        phone.quit()


def test_signing_every_other_device_out_from_the_account_page(server, browser):
    sign_up(browser, server, "기기정리미나")
    browser.get(server.url + "/me")
    email = browser.find_element(By.CSS_SELECTOR, ".profile .muted").text
    laptop = make_browser()
    laptop.test_name = browser.test_name
    try:
        laptop.get(server.url + "/login")
        fill(laptop, "email", email)
        fill(laptop, "password", "password1")
        laptop.find_element(By.CSS_SELECTOR, "button[type=submit].primary").click()
        wait_for(laptop, EC.url_contains("/me"))

        # The phone's account page lists both, this one marked.
        browser.get(server.url + "/me?devices")
        devices = browser.find_elements(By.CSS_SELECTOR, "#devices .device")
        assert len(devices) == 2, [d.text for d in devices]
        assert "이 기기" in browser.find_element(By.CSS_SELECTOR, "#devices .device.current").text
        browser.execute_script("document.getElementById('devices').scrollIntoView()")
        assert no_horizontal_overflow(browser)
        shot(browser, "20-signed-in-devices")
        browser.find_element(By.ID, "sign-out-others").click()
        wait_for(browser, EC.url_contains("notice=others_signed_out"))
        assert len(browser.find_elements(By.CSS_SELECTOR, "#devices .device")) == 1

        laptop.get(server.url + "/me")
        wait_for(laptop, EC.url_contains("/login"))
    finally:
        laptop.quit()

    # The same pages in English.
    browser.get(server.url + "/me")
    browser.find_element(By.CSS_SELECTOR, "button[value=en]").click()
    wait_for(browser, lambda d: d.find_element(By.TAG_NAME, "html").get_attribute("lang") == "en")
    browser.get(server.url + "/forgot-password")
    assert browser.find_element(By.TAG_NAME, "h1").text == "Reset your password"
    browser.get(server.url + "/me")
    assert browser.find_element(By.CSS_SELECTOR, "#devices h2").text == "Signed-in devices"
