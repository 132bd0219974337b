import { reviewVerdict, type Review } from './webhook-token.js';

const API = ['https://api.example'];
const yes = (audiences?: string[]): Review => ({ status: { authenticated: true, user: { username: 'u' }, ...(audiences ? { audiences } : {}) } });

describe('reviewVerdict: audiences of a webhook answer (upstream webhook.go)', () => {
  test.each<[string, Review, string[], boolean, string[] | 'denied' | 'no-audiences']>([
    ['a request checked for the API audiences, answer without audiences', yes(), API, false, 'no-audiences'],
    ['a TokenReview for other audiences, answer without audiences: only the API audiences count (security review)', yes(), ['https://vault'], true, 'denied'],
    ['a TokenReview for the API audience and another, answer without audiences', yes(), ['https://vault', ...API], true, API],
    ['a TokenReview answered with its audience', yes(['https://vault']), ['https://vault'], true, ['https://vault']],
    ['an answer for another audience than asked', yes(['https://other']), ['https://vault'], true, 'denied'],
    ['not authenticated', { status: { authenticated: false } }, API, false, 'denied'],
    ['authenticated without a user name', { status: { authenticated: true, user: {} } }, API, false, 'denied'],
  ])('%s', (_n, review, wanted, asked, want) => {
    const v = reviewVerdict(review, wanted, asked, API);
    if (want === 'denied') expect(v).toEqual({ denied: true });
    else if (want === 'no-audiences') expect(v).toEqual({ result: { user: { username: 'u', groups: [] } } });
    else expect(v).toEqual({ result: { user: { username: 'u', groups: [] }, audiences: want } });
  });

  test('with no API audiences and none asked, nothing is checked', () => {
    expect(reviewVerdict(yes(), [], false, [])).toEqual({ result: { user: { username: 'u', groups: [] } } });
  });
});
