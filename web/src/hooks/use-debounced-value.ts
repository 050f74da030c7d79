import { useEffect, useState } from 'react'

/**
 * `value` once it has stayed the same for `delayMs` (docs/product.md#constants: 500 ms for the URL
 * and artwork inputs). The setter makes a value current at once, for values
 * the app sets itself (tags, prefill, clearing) rather than the user typing.
 */
export function useDebouncedValue<T>(value: T, delayMs: number): [T, (now: T) => void] {
  const [debounced, setDebounced] = useState(value)
  useEffect(() => {
    const timer = setTimeout(() => setDebounced(value), delayMs)
    return () => clearTimeout(timer)
  }, [value, delayMs])
  return [debounced, setDebounced]
}
