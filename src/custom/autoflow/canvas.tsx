/**
 * The rule drawn with @xyflow/react: Trigger → Scope → Condition → the actions in their order. Clicking a
 * node, or Enter on a focused one (Tab moves between them), opens its form; a node whose part of the document is
 * wrong is drawn red with the message. The layout is fixed (nothing to drag): the flow reads top down, the actions side
 * by side in their order, so it stays legible beside the open panel.
 */
import { Background, Controls, Handle, Position, ReactFlow, ReactFlowProvider, useReactFlow, type Edge, type Node, type NodeProps } from '@xyflow/react';
import '@xyflow/react/dist/style.css';
import { useEffect, useMemo, type KeyboardEvent } from 'react';
import { useTranslation } from 'react-i18next';
import type { AutoflowRuleDocument } from '../../../common/autoflow-rule';
import './canvas.css';
import type { FieldError, NodeKey } from './node-forms';
import { poolIdsOf, usePoolNames } from './pool-names';
import { actionWords, conditionWords, scopeWords, triggerName } from './words';

type StepData = {
  kind: 'trigger' | 'scope' | 'condition' | 'action';
  label: string;
  title: string;
  error?: string;
  first: boolean;
  last: boolean;
  open: boolean;
};
type StepNode = Node<StepData, 'step'>;

function Step({ data }: NodeProps<StepNode>) {
  return (
    <div className={`af-node af-${data.kind}${data.error ? ' af-invalid' : ''}${data.open ? ' af-open' : ''}`}>
      {!data.first && <Handle type="target" position={Position.Top} isConnectable={false} />}
      <div className="af-label">
        {data.label}
        <span className="af-sr">: </span>
      </div>
      <div className="af-title">{data.title}</div>
      {data.error && <div className="af-error">{data.error}</div>}
      {!data.last && <Handle type="source" position={Position.Bottom} isConnectable={false} />}
    </div>
  );
}
const NODE_TYPES = { step: Step };
/** Rows of the flow and the distance between actions side by side. */
const ROW = 110;
const GAP = 230;

interface CanvasProps {
  doc: AutoflowRuleDocument;
  open: NodeKey | null;
  errors: Partial<Record<NodeKey, FieldError[]>>;
  onOpen: (node: NodeKey) => void;
}

function Flow({ doc, open, errors, onOpen }: CanvasProps) {
  const { t, i18n } = useTranslation();
  const { fitView } = useReactFlow();
  const pools = usePoolNames(poolIdsOf([doc.scope]));
  const nodes = useMemo<StepNode[]>(() => {
    const step = (
      id: NodeKey,
      kind: StepData['kind'],
      label: string,
      title: string,
      x: number,
      y: number,
      edge: { first?: boolean; last?: boolean } = {},
    ): StepNode => {
      const error = errors[id]?.[0]?.message;
      return {
        id,
        type: 'step',
        position: { x, y },
        data: { kind, label, title, error, first: !!edge.first, last: !!edge.last, open: open === id },
        // Named by its visible text (what a voice user says: "Condition: above 50 MB…"); how to open it is the canvas's
        // description (aria-describedby).
        ariaRole: 'button',
        draggable: false,
        connectable: false,
        deletable: false,
      };
    };
    const condition = conditionWords(t, i18n.language, doc.trigger);
    const n = doc.actions.length;
    return [
      step('trigger', 'trigger', t('autoflow.node.trigger'), triggerName(t, doc.trigger.type), 0, 0, { first: true }),
      step('scope', 'scope', t('autoflow.node.scope'), scopeWords(t, i18n.language, doc.scope, pools), 0, ROW),
      step('condition', 'condition', t('autoflow.node.condition'), condition, 0, ROW * 2),
      ...doc.actions.map((a, i) =>
        step(`action-${i}`, 'action', t('autoflow.node.actionN', { n: i + 1 }), actionWords(t, a), (i - (n - 1) / 2) * GAP, ROW * 3 + 20, { last: true }),
      ),
    ];
  }, [doc, errors, open, t, i18n.language, pools]);
  const edges = useMemo<Edge[]>(
    () =>
      [
        { id: 'e-trigger-scope', source: 'trigger', target: 'scope' },
        { id: 'e-scope-condition', source: 'scope', target: 'condition' },
        ...doc.actions.map((_, i) => ({ id: `e-condition-action-${i}`, source: 'condition', target: `action-${i}` })),
      ].map((e) => ({ ...e, focusable: false, selectable: false, markerEnd: { type: 'arrowclosed' as never } })),
    [doc.actions],
  );
  // A node added or removed, or the panel opened or closed beside the canvas: the whole rule stays in view.
  const panel = open !== null;
  useEffect(() => {
    const id = requestAnimationFrame(() => requestAnimationFrame(() => void fitView({ padding: 0.15, duration: 0 })));
    return () => cancelAnimationFrame(id);
  }, [doc.actions.length, panel, fitView]);

  const onKeyDown = (e: KeyboardEvent) => {
    if (e.key !== 'Enter' && e.key !== ' ') return;
    const node = (e.target as HTMLElement).closest('.react-flow__node');
    const id = node?.getAttribute('data-id');
    if (id) {
      e.preventDefault();
      onOpen(id as NodeKey);
    }
  };

  return (
    <div className="af-canvas" onKeyDown={onKeyDown}>
      <ReactFlow
        nodes={nodes}
        edges={edges}
        nodeTypes={NODE_TYPES}
        onNodeClick={(_, node) => onOpen(node.id as NodeKey)}
        nodesDraggable={false}
        nodesConnectable={false}
        elementsSelectable={false}
        nodesFocusable
        edgesFocusable={false}
        deleteKeyCode={null}
        zoomOnScroll={false}
        panOnScroll={false}
        preventScrolling={false}
        zoomOnDoubleClick={false}
        minZoom={0.4}
        maxZoom={1.2}
        fitView
        fitViewOptions={{ padding: 0.15 }}
        ariaLabelConfig={{
          'node.a11yDescription.default': t('autoflow.canvasHelp'),
          'node.a11yDescription.keyboardDisabled': t('autoflow.canvasHelp'),
          'controls.ariaLabel': t('autoflow.zoomControls'),
          'controls.zoomIn.ariaLabel': t('autoflow.zoomIn'),
          'controls.zoomOut.ariaLabel': t('autoflow.zoomOut'),
          'controls.fitView.ariaLabel': t('autoflow.fitView'),
        }}
      >
        <Background gap={20} color="#e6e6e6" />
        <Controls showInteractive={false} />
      </ReactFlow>
    </div>
  );
}

export default function Canvas(props: CanvasProps) {
  return (
    <ReactFlowProvider>
      <Flow {...props} />
    </ReactFlowProvider>
  );
}
