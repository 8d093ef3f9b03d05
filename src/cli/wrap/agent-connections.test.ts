import { describe, expect, it } from 'vitest';
import { canonicalAddress, parseTcpTable, procAddress } from './agent-connections.js';

const TABLE = `  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode
   0: 0100007F:9C40 0100007F:1F90 01 00000000:00000000 00:00000000 00000000     0        0 111 1 0 20 4 30 10 -1
   1: 0100007F:9C41 0100007F:1F91 06 00000000:00000000 00:00000000 00000000     0        0 222 1 0 20 4 30 10 -1
   2: 0100007F:9C42 08080808:01BB 02 00000000:00000000 00:00000000 00000000     0        0 333 1 0 20 4 30 10 -1`;

describe('agent connections from /proc', () => {
  it('reads addresses of /proc/net/tcp and tcp6 as the kernel writes them', () => {
    expect(procAddress('0100007F')).toBe('127.0.0.1');
    expect(procAddress('00000000000000000000000001000000')).toBe('0:0:0:0:0:0:0:1');
    expect(procAddress('0000000000000000FFFF00000100007F')).toBe('127.0.0.1');
    expect(canonicalAddress('::1')).toBe('0:0:0:0:0:0:0:1');
    expect(canonicalAddress('[::ffff:10.0.0.1]')).toBe('10.0.0.1');
    expect(canonicalAddress('2001:db8::a')).toBe('2001:db8:0:0:0:0:0:a');
  });

  it('keeps only live connections (established or opening) of the sockets it was given', () => {
    const inodes = new Map([
      ['111', 10],
      ['222', 10],
      ['333', 11],
    ]);
    expect(parseTcpTable(TABLE, inodes)).toEqual([
      { address: '127.0.0.1', port: 8080, pid: 10 },
      { address: '8.8.8.8', port: 443, pid: 11 },
    ]);
    expect(parseTcpTable(TABLE, new Map([['111', 10]]))).toHaveLength(1);
  });
});
