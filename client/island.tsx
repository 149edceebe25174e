/**
 * The boundary between server markup and the browser: an island is rendered by the server
 * inside `<div data-island=name>` with its props as JSON, and hydrated with the same
 * component on the client.
 */
import type { ReactElement } from "react";

export function Island<P extends object>({
  name,
  props,
  children,
  className,
}: {
  name: string;
  props: P;
  children: ReactElement;
  className?: string;
}) {
  return (
    <div data-island={name} data-props={JSON.stringify(props)} className={className}>
      {children}
    </div>
  );
}
