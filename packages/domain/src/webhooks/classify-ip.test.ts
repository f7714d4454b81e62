import { describe, expect, it } from 'vitest';
import { isIpAddress, isPrivateAddress, parseIpv4, parseIpv6 } from './classify-ip';

describe('parseIpv4', () => {
  it('reads every spelling inet_aton reads', () => {
    expect(parseIpv4('127.0.0.1')).toBe(0x7f000001);
    expect(parseIpv4('2130706433')).toBe(0x7f000001);
    expect(parseIpv4('0x7f000001')).toBe(0x7f000001);
    expect(parseIpv4('0177.0.0.1')).toBe(0x7f000001);
    expect(parseIpv4('0x7f.1')).toBe(0x7f000001);
    expect(parseIpv4('127.1')).toBe(0x7f000001);
    expect(parseIpv4('10.0.258')).toBe(0x0a000102);
  });

  it('refuses what is no IPv4 address', () => {
    for (const bad of [
      '',
      '1.2.3.4.5',
      '256.1.1.1',
      '1.2.3.256',
      '08.1.1.1',
      'a.b.c.d',
      '1..2.3',
      '4294967296',
      'example.com',
      '1.2.3.4 ',
    ]) {
      expect(parseIpv4(bad), bad).toBeUndefined();
    }
  });
});

describe('parseIpv6', () => {
  it('reads compressed, full, bracketed, zoned and dotted-tail forms', () => {
    expect(parseIpv6('::1')).toEqual([0, 0, 0, 0, 0, 0, 0, 1]);
    expect(parseIpv6('::')).toEqual([0, 0, 0, 0, 0, 0, 0, 0]);
    expect(parseIpv6('[fe80::1%eth0]')).toEqual([0xfe80, 0, 0, 0, 0, 0, 0, 1]);
    expect(parseIpv6('::ffff:127.0.0.1')).toEqual([0, 0, 0, 0, 0, 0xffff, 0x7f00, 1]);
    expect(parseIpv6('1:2:3:4:5:6:7:8')).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    expect(parseIpv6('1:2:3:4:5:6:1.2.3.4')).toEqual([1, 2, 3, 4, 5, 6, 0x102, 0x304]);
  });

  it('refuses malformed addresses', () => {
    for (const bad of ['1', ':::', '1::2::3', '1:2:3:4:5:6:7:8:9', '12345::', '::1.2.3', '::256.1.1.1', 'g::1', '1:2:3:4:5:6:7']) {
      expect(parseIpv6(bad), bad).toBeUndefined();
    }
  });
});

describe('isPrivateAddress (decisions §11.2)', () => {
  it.each([
    '0.0.0.0',
    '10.1.2.3',
    '100.64.0.1',
    '100.127.255.255',
    '127.0.0.1',
    '127.255.255.254',
    '169.254.169.254',
    '172.16.0.1',
    '172.31.255.255',
    '192.168.1.1',
    '192.0.2.10',
    '198.18.0.1',
    '224.0.0.1',
    '239.255.255.250',
    '255.255.255.255',
    '240.0.0.1',
    '2130706433',
    '0x7f.0.0.1',
    '0177.0.0.1',
    '017700000001',
    '0xa9fea9fe',
    '::',
    '::1',
    'fe80::1',
    'fe80::1%lo0',
    'fc00::1',
    'fd12:3456::1',
    'ff02::1',
    'fec0::1',
    '2001:db8::1',
    '::ffff:127.0.0.1',
    '::ffff:7f00:1',
    '::ffff:10.0.0.1',
    '::ffff:169.254.169.254',
    '::127.0.0.1',
    '64:ff9b::10.0.0.1',
    '2002:7f00:1::',
    '2001::1',
    '100::1',
    'not-an-ip',
    '',
    'localhost',
  ])('%s is not public', (ip) => {
    expect(isPrivateAddress(ip)).toBe(true);
  });

  it.each([
    '8.8.8.8',
    '1.1.1.1',
    '93.184.216.34',
    '100.63.255.255',
    '100.128.0.0',
    '172.15.255.255',
    '172.32.0.0',
    '192.169.0.1',
    '2606:4700:4700::1111',
    '2a00:1450:4001::200e',
    '::ffff:8.8.8.8',
    '64:ff9b::8.8.8.8',
    '2002:808:808::',
  ])('%s is public', (ip) => {
    expect(isPrivateAddress(ip)).toBe(false);
  });

  it('tells IP literals from host names', () => {
    expect(isIpAddress('10.0.0.1')).toBe(true);
    expect(isIpAddress('::1')).toBe(true);
    expect(isIpAddress('example.com')).toBe(false);
  });
});
