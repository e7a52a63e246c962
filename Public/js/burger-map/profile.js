// A person's burger map page (/map/users/{id}, and /map/me for one's own): the follow button
// (it changes at once, with the follower count, and changes back if the server refuses) and the
// open tab's list — reviews, people or places — loaded page by page as its end scrolls into view.
//
// Conventions for every script under Public/js/: `data-*` attributes carry values that belong to
// one element; the single JSON config block (shared/config.js) carries values the whole page
// needs; no inline scripts or handlers (the Content-Security-Policy forbids them).
import { api } from '../shared/api.js';
import { config, t } from '../shared/config.js';
import { say } from '../shared/dom.js';
import { errorMessage, formatNumber, pager, personRow, placeRow, reviewCard } from './cards.js';

const profile = config.profile || {};
const profileId = String(profile.id || location.pathname.split('/').filter(Boolean).pop() || '').toLowerCase();

// ---- Follow ----

const followButton = document.querySelector('button#follow-button');
const followerCount = document.getElementById('follower-count');

function readFollowers() {
  if (!followerCount) return 0;
  return Number(followerCount.dataset.value ?? followerCount.textContent.replace(/\D/g, '')) || 0;
}

function showFollow(following, followers) {
  if (followButton) {
    followButton.setAttribute('aria-pressed', following ? 'true' : 'false');
    followButton.textContent = t(following ? 'burger_map.js.profile.unfollow' : 'burger_map.js.profile.follow');
    // Following is the quiet state; "follow" is the call to action.
    followButton.classList.toggle('primary', !following);
  }
  if (followerCount && followers !== undefined) {
    followerCount.textContent = formatNumber(followers);
    followerCount.dataset.value = String(followers);
  }
}

if (followButton) {
  followButton.addEventListener('click', async () => {
    if (followButton.getAttribute('aria-busy') === 'true') return;
    const wasFollowing = followButton.getAttribute('aria-pressed') === 'true';
    const wasFollowers = readFollowers();
    showFollow(!wasFollowing, Math.max(0, wasFollowers + (wasFollowing ? -1 : 1)));
    followButton.setAttribute('aria-busy', 'true');
    try {
      const answer = await api(wasFollowing ? 'DELETE' : 'PUT', `/api/v1/burger-map/users/${encodeURIComponent(profileId)}/follow`);
      if (answer) showFollow(Boolean(answer.followedByMe), answer.followerCount);
      const name = answer?.nickname || profile.nickname || '';
      say(t(answer?.followedByMe ? 'burger_map.js.profile.followed' : 'burger_map.js.profile.unfollowed', { name }));
    } catch (error) {
      showFollow(wasFollowing, wasFollowers);
      say(errorMessage(error, t('burger_map.js.profile.follow_failed')));
    } finally {
      followButton.removeAttribute('aria-busy');
    }
  });
}

// ---- The open tab's list ----

// On one's own page the tabs scroll sideways: bring the open one into view (likes, want…).
const tabs = document.querySelector('.profile-tabs');
const openTab = tabs?.querySelector('a[aria-current]');
if (tabs && openTab && tabs.scrollWidth > tabs.clientWidth) {
  tabs.scrollLeft = openTab.offsetLeft - (tabs.clientWidth - openTab.offsetWidth) / 2;
}

const list = document.getElementById('profile-list');
if (list) {
  const renderers = { reviews: (review) => reviewCard(review, { heading: 'h2' }), people: personRow, places: placeRow };
  pager(list, document.getElementById('profile-more'), {
    render: renderers[list.dataset.kind] || renderers.reviews,
    emptyElement: document.getElementById('profile-empty'),
  });
}
