/** The demo store's handle (decisions §12: the start command seeds it and prints its sign-in link). */
export const DEMO_HANDLE = 'demo';
