// (routes of this group are registered here)
import type { Polka } from 'polka';
import type { ChainApiContext } from '../context.ts';

export function registerWasm(_app: Polka, _ctx: ChainApiContext): void {}
