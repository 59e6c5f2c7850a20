import { describe, expect, it } from 'vitest';
import { type CollectionSignals, scoreCollection } from './score-collection.js';
import { spamConfig } from './spam-config.js';
import { findUrlShortener, isContentAddressedUri, suspiciousTerms } from './text-signals.js';
import { defaultWeights } from './weights.js';

const contract = '0xabcdefabcdefabcdefabcdefabcdefabcdefabcd';
const cid = 'QmYwAPJzv5CZsnA625s3Xf2nemtYgPpHdWEz79ojWnPbdG';

function signals(partial: Partial<CollectionSignals> = {}): CollectionSignals {
  return {
    chainId: 1,
    contract,
    ageDays: 90,
    sales: 120,
    uniqueBuyers: 60,
    uniqueSellers: 45,
    tokenUris: [`ipfs://${cid}/1`],
    texts: ['Cool Cats', 'COOL', 'A cat with a hat'],
    urls: ['https://coolcats.example'],
    ...partial,
  };
}

describe('weights', () => {
  it('sum to 1 and stay within 0..1', () => {
    const values = Object.values(defaultWeights);
    expect(values.every((w) => w >= 0 && w <= 1)).toBe(true);
    expect(values.reduce((a, b) => a + b, 0)).toBeCloseTo(1, 10);
  });
});

describe('scoreCollection', () => {
  const config = spamConfig();

  it('an established, traded, IPFS-hosted collection scores 0 with every feature explained', () => {
    const result = scoreCollection(signals(), config);
    expect(result).toEqual({
      score: 0,
      isSpam: false,
      explanations: [
        { feature: 'trade_volume', value: 120, feature_score: 0, feature_weight: 0.15 },
        { feature: 'unique_buyers', value: 60, feature_score: 0, feature_weight: 0.1 },
        { feature: 'unique_sellers', value: 45, feature_score: 0, feature_weight: 0.05 },
        { feature: 'externally_flagged', value: false, feature_score: 0, feature_weight: 0.15 },
        { feature: 'uri_non_ipfs', value: false, feature_score: 0, feature_weight: 0.05 },
        { feature: 'suspicious_words', value: 0, feature_score: 0, feature_weight: 0.3 },
        { feature: 'url_shortener', value: false, feature_score: 0, feature_weight: 0.2 },
      ],
    });
  });

  it('an old airdrop that never traded, with a claim link behind a shortener, is spam', () => {
    const result = scoreCollection(
      signals({
        sales: 0,
        uniqueBuyers: 0,
        uniqueSellers: 0,
        tokenUris: ['https://claim-rewards.example/meta/1'],
        texts: ['$5000 USDC Reward Voucher', 'Visit bit.ly/claim-now to claim your airdrop'],
      }),
      config,
    );
    // trade 15 + buyers 10 + sellers 5 + uri 5 + words 30 + shortener 20 = 85
    expect(result.score).toBe(85);
    expect(result.isSpam).toBe(true);
    expect(
      result.explanations.find((e) => e.feature === 'suspicious_words')?.value,
    ).toBeGreaterThanOrEqual(4);
  });

  it('market features fall logarithmically between none and the saturation point', () => {
    const one = scoreCollection(signals({ sales: 1, uniqueBuyers: 1, uniqueSellers: 1 }), config);
    const few = scoreCollection(signals({ sales: 10, uniqueBuyers: 5, uniqueSellers: 5 }), config);
    const score = (r: typeof one, f: string) =>
      r.explanations.find((e) => e.feature === f)?.feature_score ?? -1;
    expect(score(one, 'trade_volume')).toBe(82);
    expect(score(few, 'trade_volume')).toBeLessThan(score(one, 'trade_volume'));
    expect(score(few, 'trade_volume')).toBeGreaterThan(0);
  });

  it('collections younger than 7 days explain the volume signal with weight 0 (out of the average)', () => {
    const dead = { sales: 0, uniqueBuyers: 0, uniqueSellers: 0 };
    const young = scoreCollection(signals({ ageDays: 2, ...dead }), config);
    expect(young.explanations.map((e) => e.feature)).toEqual([
      'trade_volume',
      'unique_buyers',
      'unique_sellers',
      'externally_flagged',
      'uri_non_ipfs',
      'suspicious_words',
      'url_shortener',
    ]);
    expect(young.explanations[0]).toEqual({
      feature: 'trade_volume',
      value: 0,
      feature_score: 100,
      feature_weight: 0,
    });
    expect(young.score).toBe(18); // (10 + 5) / 0.85
    const old = scoreCollection(signals({ ageDays: 8, ...dead }), config);
    expect(old.score).toBe(30);
    const noMarket = spamConfig({
      youngExcluded: ['trade_volume', 'unique_buyers', 'unique_sellers'],
    });
    expect(scoreCollection(signals({ ageDays: 2, ...dead }), noMarket).score).toBe(0);
    expect(scoreCollection(signals({ ageDays: null, ...dead }), config).score).toBe(30);
  });

  it('always explains the four observed features, zeros included, whatever the age and metadata', () => {
    const observed = ['trade_volume', 'unique_buyers', 'unique_sellers', 'externally_flagged'];
    const dead = { sales: 0, uniqueBuyers: 0, uniqueSellers: 0, tokenUris: [], texts: [] };
    for (const ageDays of [0, 2, 30, null]) {
      const result = scoreCollection(signals({ ...dead, ageDays }), config);
      const explained = result.explanations.filter((e) => observed.includes(e.feature));
      expect(explained.map((e) => [e.feature, e.value])).toEqual([
        ['trade_volume', 0],
        ['unique_buyers', 0],
        ['unique_sellers', 0],
        ['externally_flagged', false],
      ]);
      // The score is the weighted average of exactly what is explained.
      const total = result.explanations.reduce((n, e) => n + e.feature_weight, 0);
      const weighted = result.explanations.reduce(
        (n, e) => n + e.feature_weight * e.feature_score,
        0,
      );
      expect(result.score).toBe(Math.round(weighted / total));
    }
  });

  it('calibration: one weak signal never flags, scam wording or a shortener on a dead market does', () => {
    const dead = {
      sales: 0,
      uniqueBuyers: 0,
      uniqueSellers: 0,
      tokenUris: ['https://api.example/1'],
    };
    expect(scoreCollection(signals(dead), config)).toMatchObject({ score: 35, isSpam: false });
    expect(scoreCollection(signals({ ...dead, texts: ['Earn rewards'] }), config)).toMatchObject({
      score: 47,
      isSpam: false,
    });
    expect(scoreCollection(signals({ ...dead, texts: ['Claim your reward'] }), config).isSpam).toBe(
      true,
    );
    expect(scoreCollection(signals({ ...dead, urls: ['https://bit.ly/x'] }), config).isSpam).toBe(
      true,
    );
    const young = { ...dead, ageDays: 1, texts: ['Claim your $5000 reward at gift-drop.xyz'] };
    expect(scoreCollection(signals(young), config).isSpam).toBe(true);
    const traded = { texts: ['Claim your physical merch'] };
    expect(scoreCollection(signals(traded), config).isSpam).toBe(false);
  });

  it('unknown metadata leaves uri_non_ipfs out; https metadata alone stays well under the threshold', () => {
    expect(
      scoreCollection(signals({ tokenUris: [] }), config).explanations.map((e) => e.feature),
    ).not.toContain('uri_non_ipfs');
    const https = scoreCollection(signals({ tokenUris: ['https://api.example/1'] }), config);
    expect(https.score).toBe(5);
    expect(https.isSpam).toBe(false);
  });

  it('a deny-listed contract is flagged (any-chain and chain-specific entries) and raised to the threshold', () => {
    for (const entry of [
      contract,
      `1:${contract}`,
      `1:${contract.toUpperCase().replace('0X', '0x')}`,
    ]) {
      const result = scoreCollection(signals(), spamConfig({ denyList: [entry] }));
      expect(result.explanations.find((e) => e.feature === 'externally_flagged')).toMatchObject({
        value: true,
        feature_score: 100,
      });
      expect(result.score).toBe(50);
      expect(result.isSpam).toBe(true);
    }
    const otherChain = scoreCollection(signals(), spamConfig({ denyList: [`10:${contract}`] }));
    expect(otherChain.isSpam).toBe(false);
  });

  it('manual overrides win: configured first, then stored', () => {
    const spammy = signals({
      sales: 0,
      uniqueBuyers: 0,
      uniqueSellers: 0,
      texts: ['claim airdrop at bit.ly/x'],
    });
    const allowed = scoreCollection(
      spammy,
      spamConfig({ overrides: [[`1:${contract}`, 'not_spam']] }),
    );
    expect(allowed).toMatchObject({ score: 0, isSpam: false });
    expect(allowed.explanations[0]).toEqual({
      feature: 'manual_classification',
      value: 'not_spam',
      feature_score: 0,
      feature_weight: 1,
    });
    const denied = scoreCollection(signals({ storedOverride: 'spam' }), config);
    expect(denied).toMatchObject({ score: 100, isSpam: true });
    const configWins = scoreCollection(
      signals({ storedOverride: 'spam' }),
      spamConfig({ overrides: [[contract, 'not_spam']] }),
    );
    expect(configWins.isSpam).toBe(false);
  });

  it('the threshold is configurable', () => {
    const s = signals({ tokenUris: ['https://api.example/1'] });
    expect(scoreCollection(s, spamConfig({ threshold: 5 })).isSpam).toBe(true);
    expect(scoreCollection(s, spamConfig({ threshold: 6 })).isSpam).toBe(false);
  });

  it('rejects bad configuration', () => {
    expect(() => spamConfig({ threshold: 101 })).toThrow(RangeError);
    expect(() => spamConfig({ weights: { trade_volume: 2 } })).toThrow(RangeError);
    expect(() => spamConfig({ denyList: ['not-an-address'] })).toThrow(RangeError);
  });
});

describe('text signals', () => {
  it('finds suspicious terms on word boundaries', () => {
    expect(suspiciousTerms(['Claim your reward at apes-gift.xyz'])).toEqual([
      'claim',
      'reward',
      'url',
    ]);
    expect(suspiciousTerms(['AIRDROP', 'Free Mint now', 'You won $1,000!'])).toEqual([
      'airdrop',
      'free mint',
      'you won',
      'cash amount',
    ]);
    expect(suspiciousTerms(['Proclaimed Kings', 'Visitors Center', 'Drop #3'])).toEqual([]);
  });
  it('finds URL shorteners in URLs and prose, not in look-alike hosts', () => {
    expect(findUrlShortener(['https://bit.ly/abc'])).toBe('bit.ly');
    expect(findUrlShortener(['go to tinyurl.com/xyz now'])).toBe('tinyurl.com');
    expect(
      findUrlShortener(['https://notbit.ly.example/x', 'https://habit.lyon.example']),
    ).toBeUndefined();
  });
  it('tells content-addressed URIs from server-hosted ones', () => {
    for (const uri of [
      `ipfs://${cid}/1`,
      `${cid}/1`,
      `/ipfs/${cid}`,
      'ar://abc',
      'data:application/json,{}',
      `https://ipfs.io/ipfs/${cid}`,
      'https://arweave.net/abc',
    ]) {
      expect(isContentAddressedUri(uri), uri).toBe(true);
    }
    for (const uri of ['https://api.example/1', 'http://127.0.0.1:8080/1.json']) {
      expect(isContentAddressedUri(uri), uri).toBe(false);
    }
  });
});
